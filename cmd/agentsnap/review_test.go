package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// propose writes a proposal beside the golden of fixture name under root:
// the golden with edit applied. It returns the golden and proposal paths
// and the proposal's text.
func propose(root, name string, edit func(string) string) (golden, proposal, text string) {
	GinkgoHelper()
	golden = filepath.Join(root, "fixtures", name, fixture.GoldenFile)
	b, err := os.ReadFile(golden)
	Expect(err).NotTo(HaveOccurred())
	text = edit(string(b))
	Expect(text).NotTo(Equal(string(b)), "the edit changes the golden")
	proposal = golden + ".new"
	Expect(os.WriteFile(proposal, []byte(text), 0o644)).To(Succeed())
	return golden, proposal, text
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, -1) }
}

// Edits of the committed goldens, harmless and likely mistakes.
var (
	codewordJAM = replace("MARMALADE", "JAM")
	// dropGrandchild removes session 2 of mixed/fork-spawns-grandchild.
	dropGrandchild = func(s string) string { return s[:strings.Index(s, "\n== session 2")+1] }
	// forkToSpawn makes fork/codeword's child a spawn.
	forkToSpawn = replace("== session 1: fork of root", "== session 1: spawn of root")
	// longerSeed changes the turns fork/codeword's child inherits.
	longerSeed = replace("(inherits 12 events from root: turn 1)", "(inherits 24 events from root: turns 1, 2)")
	// restreamedSeed changes only how many events fork/codeword's child
	// inherits, as a live re-recording that streams turn 1 in other chunks.
	restreamedSeed = replace("(inherits 12 events", "(inherits 15 events")
	// newCallIDs gives mixed/fork-spawns-grandchild's calls other ids, as
	// a live model mints on every recording: the same tree, renamed.
	newCallIDs = func(s string) string {
		return strings.NewReplacer("call_plan", "call_Xq81", "call_weather", "call_Zr22").Replace(s)
	}
)

// reviewCLI runs agentsnap in dir with stdin as its input.
func reviewCLI(dir, stdin string, environ map[string]string, args ...string) result {
	GinkgoHelper()
	var out, errb bytes.Buffer
	getenv, asked := testEnv(environ)
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: getenv, dir: dir}
	code := run(context.Background(), e, args)
	asked()
	return result{code, out.String(), errb.String()}
}

func readFile(path string) string {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = Describe("agentsnap review", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("--accept replaces each golden with its proposal", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child", "spawn/two-sequential")
		g1, p1, t1 := propose(root, "fork/codeword", codewordJAM)
		g2, p2, t2 := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))
		untouched := readFile(filepath.Join(root, "fixtures/spawn/two-sequential", fixture.GoldenFile))
		r := cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout).To(Equal("accepted fork/codeword: " + g1 + " now holds the proposal\naccepted spawn/one-child: " + g2 + " now holds the proposal\n"))
		Expect(readFile(g1)).To(Equal(t1))
		Expect(readFile(g2)).To(Equal(t2))
		Expect(p1).NotTo(BeAnExistingFile())
		Expect(p2).NotTo(BeAnExistingFile())
		Expect(readFile(filepath.Join(root, "fixtures/spawn/two-sequential", fixture.GoldenFile))).To(Equal(untouched))
	})

	It("--reject deletes each proposal and keeps the goldens", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		g1, p1, _ := propose(root, "fork/codeword", codewordJAM)
		before := readFile(g1)
		r := cli(root, nil, "review", "fixtures/fork/...", "--reject")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(Equal("rejected fork/codeword: removed " + p1 + "\n"))
		Expect(p1).NotTo(BeAnExistingFile())
		Expect(readFile(g1)).To(Equal(before))
	})

	It("--format json lists each proposal's diff by session, and its warnings, changing nothing", func() {
		root := fixtureCopy("fork/codeword", "mixed/fork-spawns-grandchild", "spawn/one-child")
		g1, p1, _ := propose(root, "fork/codeword", codewordJAM)
		_, p2, _ := propose(root, "mixed/fork-spawns-grandchild", dropGrandchild)
		before := treeDigest(filepath.Join(root, "fixtures"))
		r := cli(root, nil, "review", "--format", "json")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		var got []proposal
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
		Expect(got).To(HaveLen(2))
		Expect(got[0]).To(SatisfyAll(
			HaveField("Scenario", "fork/codeword"),
			HaveField("Dir", filepath.Join(root, "fixtures/fork/codeword")),
			HaveField("Golden", g1),
			HaveField("Proposal", p1),
			HaveField("Warnings", BeEmpty()),
		))
		Expect(got[0].Sessions).To(Equal([]sessionDiff{
			{Session: "root", Status: "changed", Diff: "[diff -golden +proposal]\n" +
				"@@ golden line 1, proposal line 1 @@\n == root ==\n turn 1 (user)\n" +
				"-  user: Remember this for later: the project codeword is MARMALADE. Reply with the single word OK.\n" +
				"+  user: Remember this for later: the project codeword is JAM. Reply with the single word OK.\n" +
				"   step 1\n     assistant: OK\n   ended completed\n" +
				"@@ golden line 9, proposal line 9 @@\n   step 1\n" +
				"     thinking: The forked child inherits turn 1, so it knows the codeword.\n" +
				"     call call_fork_1 subagent_fork {\"description\":\"Recall the codeword\",\"prompt\":\"What is the project codeword? Reply with that one word.\"}\n" +
				"-    result call_fork_1: MARMALADE\n+    result call_fork_1: JAM\n   step 2\n-    assistant: MARMALADE\n+    assistant: JAM\n   ended completed\n"},
			{Session: "session 1: fork of root via call_fork_1, depth 1", Status: "changed", Diff: "[diff -golden +proposal]\n" +
				"@@ golden line 20, proposal line 20 @@\n   user: What is the project codeword? Reply with that one word.\n   step 1\n" +
				"     thinking: The codeword was given earlier in this conversation.\n-    assistant: MARMALADE\n+    assistant: JAM\n   ended completed\n"},
		}), "one diff per session, numbered as in the files")
		Expect(got[1].Scenario).To(Equal("mixed/fork-spawns-grandchild"))
		Expect(got[1].Proposal).To(Equal(p2))
		Expect(got[1].Sessions).To(ConsistOf(SatisfyAll(
			HaveField("Session", "session 2: spawn of session 1 via call_weather, depth 2"),
			HaveField("Status", "removed"),
			HaveField("Diff", HavePrefix("[diff -golden +proposal]\n@@ golden lines 27-32 @@\n-== session 2: spawn of session 1 via call_weather, depth 2 ==\n-turn 1 (subagent)\n")),
		)))
		Expect(got[1].Warnings).To(ConsistOf("session 2: spawn of session 1 via call_weather, depth 2: the session is in the golden but not in the proposal: the agent no longer starts it"))
		Expect(r.stdout).To(ContainSubstring(`"warnings": []`), "an empty list is [], not null")
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before), "listing changes nothing")
	})

	It("--format markdown prints a section per scenario with diff blocks, changing nothing", func() {
		root := fixtureCopy("fork/codeword", "mixed/fork-spawns-grandchild")
		propose(root, "fork/codeword", replace("assistant: MARMALADE", "assistant: ```MARMALADE```"))
		_, p2, _ := propose(root, "mixed/fork-spawns-grandchild", dropGrandchild)
		before := treeDigest(filepath.Join(root, "fixtures"))
		r := cli(root, nil, "review", "--format", "markdown")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(HavePrefix("# Golden proposals\n\n2 proposals pending review."))
		Expect(r.stdout).To(ContainSubstring("\n## fork/codeword\n"))
		Expect(r.stdout).To(ContainSubstring("\n**session 1: fork of root via call_fork_1, depth 1** (changed)\n\n````diff\n[diff -golden +proposal]\n"),
			"a diff quoting ``` gets a longer fence")
		Expect(r.stdout).To(ContainSubstring("+    assistant: ```MARMALADE```\n   ended completed\n````\n"))
		Expect(r.stdout).To(ContainSubstring("\n## mixed/fork-spawns-grandchild\n\n`" + p2 + "` would replace "))
		Expect(r.stdout).To(ContainSubstring("\n> **Warning:** session 2: spawn of session 1 via call_weather, depth 2: the session is in the golden but not in the proposal"))
		Expect(r.stdout).To(ContainSubstring("\n**session 2: spawn of session 1 via call_weather, depth 2** (removed)\n\n```diff\n"))
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before))
	})

	It("--format json --accept prints the proposals on stdout and what it did on stderr", func() {
		root := fixtureCopy("fork/codeword")
		g, p, text := propose(root, "fork/codeword", codewordJAM)
		r := cli(root, nil, "review", "--format", "json", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		var got []proposal
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got).To(HaveLen(1))
		Expect(r.stderr).To(Equal("accepted fork/codeword: " + g + " now holds the proposal\n"))
		Expect(readFile(g)).To(Equal(text))
		Expect(p).NotTo(BeAnExistingFile())
	})

	DescribeTable("refuses to accept a likely mistake without --force, and accepts the rest",
		func(name string, edit func(string) string, warning string) {
			root := fixtureCopy("fork/codeword", "mixed/fork-spawns-grandchild", "spawn/one-child")
			golden, proposal, text := propose(root, name, edit)
			before := readFile(golden)
			gOK, _, tOK := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))

			r := cli(root, nil, "review", "--accept")
			Expect(r.code).To(Equal(exitFail), "a refused mistake is left pending")
			Expect(r.stdout).To(ContainSubstring("left pending " + name + ": " + proposal + " looks like a mistake:\n  warning: " + warning))
			Expect(r.stdout).To(ContainSubstring("then accept it with --force if it is intended"))
			Expect(readFile(golden)).To(Equal(before))
			Expect(readFile(proposal)).To(Equal(text))
			Expect(readFile(gOK)).To(Equal(tOK), "the harmless proposal is accepted")

			r = cli(root, nil, "review", "--accept", "--force")
			Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
			Expect(readFile(golden)).To(Equal(text))
			Expect(proposal).NotTo(BeAnExistingFile())
		},
		Entry("a session that disappeared", "mixed/fork-spawns-grandchild", dropGrandchild,
			"session 2: spawn of session 1 via call_weather, depth 2: the session is in the golden but not in the proposal"),
		Entry("a session that disappeared from a tree whose calls got new ids", "mixed/fork-spawns-grandchild",
			func(s string) string { return newCallIDs(dropGrandchild(s)) },
			"session 2: spawn of session 1 via call_weather, depth 2: the session is in the golden but not in the proposal"),
		Entry("a child whose mode changed", "fork/codeword", forkToSpawn,
			`session 1: fork of root via call_fork_1, depth 1: the child was a fork and the proposal makes it a spawn ("== session 1: spawn of root via call_fork_1, depth 1 ==")`),
		Entry("a changed fork seed", "fork/codeword", longerSeed,
			`session 1: fork of root via call_fork_1, depth 1: the fork seed changed from "(inherits 12 events from root: turn 1)" to "(inherits 24 events from root: turns 1, 2)"`),
	)

	It("accepts a fork that inherits the same turns in another number of events (a live re-recording streams them otherwise)", func() {
		root := fixtureCopy("fork/codeword")
		golden, pending, text := propose(root, "fork/codeword", func(s string) string { return codewordJAM(restreamedSeed(s)) })
		r := cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring("warning"))
		Expect(readFile(golden)).To(Equal(text))
		Expect(pending).NotTo(BeAnExistingFile())
	})

	It("takes children whose creating calls got new ids (a live re-recording) as the same sessions, changed, and accepts them", func() {
		root := fixtureCopy("mixed/fork-spawns-grandchild")
		golden, pending, text := propose(root, "mixed/fork-spawns-grandchild", newCallIDs)
		r := cli(root, nil, "review", "--format", "json")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		var got []proposal
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
		Expect(got).To(HaveLen(1))
		Expect(got[0].Warnings).To(BeEmpty())
		status := map[string]string{}
		for _, d := range got[0].Sessions {
			status[d.Session] = d.Status
		}
		Expect(status).To(Equal(map[string]string{
			"root": "changed",
			"session 1: fork of root via call_Xq81, depth 1":       "changed",
			"session 2: spawn of session 1 via call_Zr22, depth 2": "changed",
		}), "each session beside its golden self, none removed or added")
		Expect(got[0].Sessions[1].Diff).To(ContainSubstring("\n-== session 1: fork of root via call_plan, depth 1 ==\n+== session 1: fork of root via call_Xq81, depth 1 ==\n"))

		r = cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(readFile(golden)).To(Equal(text))
		Expect(pending).NotTo(BeAnExistingFile())
	})

	It("reads answers a line at a time when its input is not a terminal, without colour", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child", "spawn/two-sequential")
		g1, p1, t1 := propose(root, "fork/codeword", codewordJAM)
		g2, p2, _ := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))
		_, p3, _ := propose(root, "spawn/two-sequential", replace("Paris", "Lyon"))
		before2 := readFile(g2)
		r := reviewCLI(root, "x\n\na\nr\n", nil, "review")
		Expect(r.code).To(Equal(exitOK), r.stdout)
		Expect(r.stdout).To(HavePrefix("3 golden proposals pending review\n\n[1/3] fork/codeword " + p1 + "\n== root == (changed)\n[diff -golden +proposal]\n"))
		Expect(r.stdout).To(ContainSubstring("[q]uit: \npress one of a, r, s, A, q\n"), "an unknown answer asks again")
		Expect(r.stdout).To(ContainSubstring("[q]uit: a\naccepted: " + g1 + " now holds the proposal\n"))
		Expect(r.stdout).To(ContainSubstring("[q]uit: r\nrejected: removed " + p2 + "\n"))
		Expect(r.stdout).To(HaveSuffix("[q]uit: (end of input: quit)\n\nreview: 1 accepted, 1 rejected, 1 left pending\n"))
		Expect(r.stdout).NotTo(ContainSubstring("\x1b["), "no colour when stdout is not a terminal")
		Expect(readFile(g1)).To(Equal(t1))
		Expect(readFile(g2)).To(Equal(before2))
		Expect(p2).NotTo(BeAnExistingFile())
		Expect(p3).To(BeAnExistingFile(), "left pending at the end of the input")
	})

	It("says so when nothing is pending", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, nil, "review")
		Expect(r.code).To(Equal(exitOK))
		Expect(r.stdout).To(Equal("no golden proposals (transcript.golden.new) pending review\n"))
		Expect(cli(root, nil, "review", "--format", "json").stdout).To(Equal("[]\n"))
	})

	It("refuses to accept under CI, and still lists", func() {
		GinkgoT().Setenv("CI", "true")
		root := fixtureCopy("fork/codeword")
		g, p, _ := propose(root, "fork/codeword", codewordJAM)
		before := readFile(g)
		r := cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(HavePrefix("agentsnap review: refusing to update goldens with CI=true"))
		Expect(readFile(g)).To(Equal(before))
		Expect(p).To(BeAnExistingFile())
		Expect(cli(root, nil, "review", "--format", "markdown").code).To(Equal(exitOK))
	})

	DescribeTable("exits 2 on bad usage",
		func(want string, args ...string) {
			root := fixtureCopy("fork/codeword")
			r := cli(root, nil, append([]string{"review"}, args...)...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(HavePrefix("agentsnap review: " + want + "\nusage: agentsnap review [DIR...]"))
		},
		Entry("--accept with --reject", "--accept and --reject exclude each other", "--accept", "--reject"),
		Entry("an unknown format", `--format "yaml": want json or markdown`, "--format", "yaml"),
	)
})

var _ = Describe("golden proposals elsewhere in the CLI", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("check writes one beside a golden that differs and lists it after the table", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		committed := readFile(filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile))
		golden := breakGolden(root)
		r := cli(root, nil, "check")
		Expect(r.code).To(Equal(exitFail))
		dir := filepath.Join(root, "fixtures/fork/codeword")
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+ok\ngolden pending: ` + regexp.QuoteMeta(golden+".new") + ` \(review it with: go tool agentsnap review ` + regexp.QuoteMeta(dir) + `\)$`))
		Expect(readFile(golden+".new")).To(Equal(committed), "the proposal is the replay's transcript")

		r = cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(cli(root, nil, "check").code).To(Equal(exitOK), "accepting the proposal fixes the check")
	})

	It("check writes no proposal under CI, and removes none", func() {
		GinkgoT().Setenv("CI", "true")
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		golden := breakGolden(root)
		stale := filepath.Join(root, "fixtures/spawn/one-child", fixture.ProposalFile)
		Expect(os.WriteFile(stale, []byte("stale\n"), 0o644)).To(Succeed())
		before := treeDigest(filepath.Join(root, "fixtures"))
		r := cli(root, nil, "check")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL golden$`))
		Expect(r.stdout).NotTo(ContainSubstring("golden pending"))
		Expect(fixture.ProposalPath(golden)).NotTo(BeAnExistingFile())
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before), "CI checks goldens; it writes no file, proposals included")
	})

	It("new adds the proposal pattern to the fixtures folder's .gitignore, once, keeping what is there", func() {
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "fixtures"), 0o755)).To(Succeed())
		ignore := filepath.Join(root, "fixtures", ".gitignore")
		Expect(os.WriteFile(ignore, []byte("scratch/"), 0o644)).To(Succeed())
		Expect(cli(root, nil, "new", "fork/one").code).To(Equal(exitOK))
		Expect(cli(root, nil, "new", "spawn/two").code).To(Equal(exitOK))
		Expect(readFile(ignore)).To(Equal("scratch/\n# golden proposals waiting for review: go tool agentsnap review\n*.golden.new\n"))

		fresh := GinkgoT().TempDir()
		Expect(cli(fresh, nil, "new", "fork/one").code).To(Equal(exitOK))
		Expect(readFile(filepath.Join(fresh, "fixtures", ".gitignore"))).To(HaveSuffix("\n" + fixture.ProposalPattern + "\n"))
		Expect(filepath.Match(fixture.ProposalPattern, fixture.ProposalFile)).To(BeTrue(), "the pattern ignores the proposal")

		By("naming the folder --fixtures gave, where review does not look by itself")
		Expect(cli(fresh, nil, "new", "fork/one", "--fixtures", "testdata/fixtures").code).To(Equal(exitOK))
		Expect(readFile(filepath.Join(fresh, "testdata", "fixtures", ".gitignore"))).To(Equal("# golden proposals waiting for review: go tool agentsnap review testdata/fixtures\n*.golden.new\n"))
		dotted := GinkgoT().TempDir()
		Expect(cli(dotted, nil, "new", "fork/two", "--fixtures", "./fixtures").code).To(Equal(exitOK))
		Expect(readFile(filepath.Join(dotted, "fixtures", ".gitignore"))).To(Equal("# golden proposals waiting for review: go tool agentsnap review\n*.golden.new\n"), "the default folder, however written, needs none")
	})
})
