package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("check on a fixture an agent in another process recorded through serve", func() {
	It("says how to replay it: from the agent's tests, or through serve with its runtime", func() {
		r := cli("", nil, "check", serveFixture)
		Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring(`it was recorded with the runtime "go-agent", and the agentsnap CLI replays only its reference runtime; ` +
			`replay it from the tests that use "go-agent" (go test ./...), or, for an agent in another process, with go tool agentsnap serve cmd/agentsnap/` +
			serveFixture + ` --runtime go-agent and the agent run against the URL it prints`))
	})
})

var _ = Describe("check's fix for a scenario that cannot be loaded or replayed", func() {
	// errorOf checks dir and returns its one scenario's JSON, which must
	// be an error.
	errorOf := func(root, dir string) (fix, problem string) {
		GinkgoHelper()
		r := cli(root, nil, "check", dir, "--format", "json")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Scenarios).To(HaveLen(1))
		Expect(got.Scenarios[0].Status).To(Equal("error"))
		Expect(got.Scenarios[0].Problems).To(HaveLen(1))
		return got.Scenarios[0].Fix, got.Scenarios[0].Problems[0]
	}

	It("is the re-recording for a damaged log, a recording mends it", func() {
		root, dir, _ := tornFixture()

		fix, problem := errorOf(root, dir)
		Expect(fix).To(Equal("go tool agentsnap record " + dir))
		Expect(problem).To(HaveSuffix("; re-record it with: " + fix))

		By("running the fix")
		Expect(cli(root, nil, strings.Fields(fix)[3:]...).code).To(Equal(exitOK))
		Expect(cli(root, nil, "check", dir).code).To(Equal(exitOK))
	})

	It("is the recording, said once, for a scenario never recorded", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		Expect(os.Remove(filepath.Join(dir, fixture.RootLog))).To(Succeed())

		fix, problem := errorOf(root, dir)
		Expect(fix).To(Equal("go tool agentsnap record " + dir))
		Expect(problem).To(HaveSuffix(" has no session.jsonl: the scenario was never recorded; record it with: " + fix))
	})

	It("is the re-recording for a log the replay cannot derive", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		replaceIn(filepath.Join(dir, fixture.RootLog), `"inputTokens":68`, `"inputTokens":-68`)

		fix, problem := errorOf(root, dir)
		Expect(fix).To(Equal("go tool agentsnap record " + dir))
		Expect(problem).To(ContainSubstring(`"usage.inputTokens" is -68`))
		Expect(problem).To(HaveSuffix("; re-record it with: " + fix))
	})

	It("is empty, and no re-recording is offered, where re-recording does not help", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		sc := filepath.Join(dir, scenario.File)

		By("scenario.json repeating a member: a recording would refuse it too")
		replaceIn(sc, `"maxDepth": 2`, `"maxDepth": 2, "maxDepth": 3`)
		fix, problem := errorOf(root, dir)
		Expect(fix).To(BeEmpty())
		Expect(problem).To(ContainSubstring(`member "maxDepth" is repeated`))
		Expect(problem).NotTo(ContainSubstring("re-record it with"))
		replaceIn(sc, `"maxDepth": 2, "maxDepth": 3`, `"maxDepth": 2`)

		By("replay.override.json: a recording leaves it as it is")
		override := filepath.Join(dir, fixture.OverrideFile)
		Expect(os.WriteFile(override, []byte(`{"session.9.jsonl": {"patch": {"0": {"kind": "hang"}}}}`), 0o644)).To(Succeed())
		fix, problem = errorOf(root, dir)
		Expect(fix).To(BeEmpty())
		Expect(problem).To(ContainSubstring(`"session.9.jsonl" names no log of the scenario`))
		Expect(problem).NotTo(ContainSubstring("re-record it with"))
		Expect(os.Remove(override)).To(Succeed())

		By("a recorded hang without scenario.json's turnTimeout: a recording refuses that too")
		hang := fixtureCopy("errors/hang-timeout")
		hangDir := filepath.Join(hang, "fixtures/errors/hang-timeout")
		replaceIn(filepath.Join(hangDir, scenario.File), `"turnTimeout": "300ms",`, ``)
		fix, problem = errorOf(hang, hangDir)
		Expect(fix).To(BeEmpty())
		Expect(problem).To(ContainSubstring(`scenario.json sets no turnTimeout, so the replay would wait forever; set "turnTimeout"`))
		Expect(problem).NotTo(ContainSubstring("re-record it with"))

		By("a scenario another runtime recorded: the CLI records the reference runtime only")
		replaceIn(sc, `"runtime": "reference"`, `"runtime": "myagent"`)
		fix, problem = errorOf(root, dir)
		Expect(fix).To(BeEmpty())
		Expect(problem).To(ContainSubstring(`recorded with the runtime "myagent"`))
		Expect(problem).NotTo(ContainSubstring("re-record it with"))
	})
})

// checkFolderGolden puts a folder where dir's golden was and checks dir
// with --format json, which fails it; it returns the golden's path and
// the output.
func checkFolderGolden(root, dir string) (string, checkJSON) {
	GinkgoHelper()
	golden := filepath.Join(dir, fixture.GoldenFile)
	Expect(os.Remove(golden)).To(Succeed())
	Expect(os.Mkdir(golden, 0o755)).To(Succeed())
	r := cli(root, nil, "check", dir, "--format", "json")
	Expect(r.code).To(Equal(exitFail), r.stderr)
	var got checkJSON
	Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
	Expect(got.Scenarios[0].Status).To(Equal("fail"))
	return golden, got
}

var _ = Describe("check with a golden that is a folder", func() {
	It("fails naming it, with no fix: an update cannot replace a folder", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		golden, got := checkFolderGolden(root, dir)
		Expect(got.Scenarios[0].FirstDifference).To(ContainSubstring(golden + " cannot be read: it is a folder, not a file"))
		Expect(got.Scenarios[0].Fix).To(BeEmpty())
		Expect(golden + ".new").NotTo(BeAnExistingFile())
	})

	It("has no fix when the replay does not match its recording either: a re-recording would replace the folder unread", func() {
		root := fixtureCopy("spawn/one-child")
		breakLog(root)
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		golden, got := checkFolderGolden(root, dir)
		Expect(got.Scenarios[0].Fix).To(BeEmpty())
		Expect(strings.Join(got.Scenarios[0].Problems, "\n")).To(ContainSubstring(golden + " cannot be read: it is a folder, not a file; restore it from version control (or make it readable), or move it away and re-record the scenario"))
	})
})

var _ = Describe("check of a fixture checked out with CRLF line endings", func() {
	It("passes: a playbook.json whose lines end in CRLF is the playbook recorded, not a changed one", func() {
		root, dir := crlfCheckout()
		r := cli(root, nil, "check", dir)
		Expect(r.stdout).NotTo(ContainSubstring("changed since the recording"))
		Expect(r.code).To(Equal(exitOK), r.stdout)
	})
})

var _ = Describe("check of a fixture recorded from a checkout with CRLF line endings", func() {
	// Before CRLF counted as LF, a recording there held the digest of the
	// playbook's CRLF bytes: that playbook has not changed either.
	It("passes on that checkout: the playbook's own bytes are the ones recorded", func() {
		root, dir := crlfRecordedCheckout()
		r := cli(root, nil, "check", dir)
		Expect(r.stdout).NotTo(ContainSubstring("changed since the recording"))
		Expect(r.code).To(Equal(exitOK), r.stdout)
	})
})

var _ = Describe("check with a golden checked out with CRLF line endings", func() {
	It("gives as first difference why, not a line that looks unchanged", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		golden := filepath.Join(dir, fixture.GoldenFile)
		b, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(golden, []byte(strings.ReplaceAll(string(b), "\n", "\r\n")), 0o644)).To(Succeed())
		GinkgoT().Setenv("CI", "true") // no golden proposal written
		r := cli(root, nil, "check", dir, "--format", "json")
		Expect(r.code).To(Equal(exitFail))
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Scenarios[0].FirstDifference).To(Equal("fork/codeword: the transcript differs from " + golden +
			` only where the diff cannot show it: its lines end in CRLF, the transcript's in LF (a checkout that converts line endings, git's core.autocrlf? keep goldens in LF: add "*.golden text eol=lf" to .gitattributes and check them out again)`))
	})
})

var _ = Describe("check's text of a fixture whose session names hold control characters", func() {
	It("escapes them, so a hand-edited id forges no line and no colour", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		b, err := os.ReadFile(filepath.Join(dir, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		// A second fork child the replay never creates, named with a newline
		// and a colour, under a call id with a newline.
		extra := strings.Replace(string(b), `"id":"root/call_fork_1"`, `"id":"root/x\n1 scenario, 1 passed\u001b[32m"`, 1)
		extra = strings.Replace(extra, `"parentCallId":"call_fork_1"`, `"parentCallId":"call_zz\n--- forged"`, 1)
		Expect(os.WriteFile(filepath.Join(dir, fixture.ChildLog(2)), []byte(extra), 0o644)).To(Succeed())

		r := cli(root, nil, "check", dir)
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(ContainSubstring(`(recorded as root/x\n1 scenario, 1 passed\x1b[32m)`))
		Expect(r.stdout).To(ContainSubstring(`session root/call_zz\n--- forged (fork; session.2.jsonl)`))
		Expect(r.stdout).NotTo(ContainSubstring("\x1b"))
		for _, line := range strings.Split(r.stdout, "\n") {
			Expect(line).NotTo(HavePrefix("1 scenario, 1 passed"))
			Expect(line).NotTo(HavePrefix("--- forged"))
		}
	})
})

// crlfCheckout copies fork/codeword as a checkout with CRLF line endings
// (git's autocrlf) leaves it: its playbook, scenario.json and logs. It
// returns the root and the scenario's folder.
func crlfCheckout() (root, dir string) {
	GinkgoHelper()
	root = fixtureCopy("fork/codeword")
	dir = filepath.Join(root, "fixtures/fork/codeword")
	for _, name := range []string{fixture.PlaybookFile, scenario.File, fixture.RootLog, fixture.ChildLog(1)} {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, []byte(strings.ReplaceAll(string(b), "\n", "\r\n")), 0o644)).To(Succeed())
	}
	return root, dir
}

// crlfRecordedCheckout is crlfCheckout recorded there before CRLF counted
// as LF: scenario.json holds the digest of the playbook's CRLF bytes.
func crlfRecordedCheckout() (root, dir string) {
	GinkgoHelper()
	root, dir = crlfCheckout()
	pb, err := os.ReadFile(filepath.Join(dir, fixture.PlaybookFile))
	Expect(err).NotTo(HaveOccurred())
	sum := sha256.Sum256(pb)
	sc := filepath.Join(dir, scenario.File)
	b, err := os.ReadFile(sc)
	Expect(err).NotTo(HaveOccurred())
	lf := fixture.PlaybookDigest(pb)
	Expect(string(b)).To(ContainSubstring(lf))
	Expect(os.WriteFile(sc, []byte(strings.ReplaceAll(string(b), lf, "sha256:"+hex.EncodeToString(sum[:8]))), 0o644)).To(Succeed())
	return root, dir
}

var _ = Describe("check of a scenario whose playbook changed since the recording", func() {
	It("names it in the table as a changed playbook, not a failing replay", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		replaceIn(filepath.Join(dir, fixture.PlaybookFile), `"OK"`, `"Okay"`)
		r := cli(root, nil, "check", dir)
		Expect(r.code).To(Equal(exitFail), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL playbook changed$`))
		Expect(r.stdout).To(ContainSubstring("changed since the recording"))

		By("JUnit types the failure the same way")
		r = cli(root, nil, "check", dir, "--format", "junit")
		Expect(r.stdout).To(ContainSubstring(`type="playbook changed"`))
	})
})

var _ = Describe("check of a scenario that fails only on its category's rules", func() {
	It("names it in the table and in JUnit as the category's failure, not a failing replay", func() {
		root := fixtureCopy("spawn/codeword=fork/codeword")
		dir := filepath.Join(root, "fixtures/spawn/codeword")
		r := cli(root, nil, "check", dir)
		Expect(r.code).To(Equal(exitFail), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/codeword\s+2\s+4\s+FAIL category$`))
		Expect(r.stdout).To(ContainSubstring("category spawn:\n  a scenario in spawn/ needs"))

		By("JUnit types the failure the same way")
		r = cli(root, nil, "check", dir, "--format", "junit")
		Expect(r.stdout).To(ContainSubstring(`type="category"`))

		By("a replay that also fails otherwise is a failing replay")
		replaceIn(filepath.Join(dir, "session.jsonl"), `"OK"`, `"Okay"`)
		r = cli(root, nil, "check", dir)
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/codeword\s+2\s+4\s+FAIL replay$`))
	})
})

var _ = Describe("firstDifference for a session the replay no longer has", func() {
	It("points at the session's line, not at the blank line before it", func() {
		fx := &fixture.Fixture{Dir: "fixtures/spawn/x", Name: "spawn/x", Golden: "fixtures/spawn/x/" + fixture.GoldenFile}
		o := &judge.Outcome{Fixture: fx, Transcript: "== root ==\n  user: a\n"}
		g := judge.GoldenResult{Path: fx.Golden, Message: "the transcript differs"}
		golden := "== root ==\n  user: a\n\n== session 1: spawn of root via call_a, depth 1 ==\n  user: b\n"
		Expect(firstDifference(o, g, &golden)).To(Equal("the transcript differs from " + fx.Golden +
			" at golden line 4, replay line 3: -== session 1: spawn of root via call_a, depth 1 =="))

		By("and for a session the replay adds")
		o.Transcript, golden = golden, "== root ==\n  user: a\n"
		Expect(firstDifference(o, g, &golden)).To(Equal("the transcript differs from " + fx.Golden +
			" at golden line 3, replay line 4: +== session 1: spawn of root via call_a, depth 1 =="))
	})
})

var _ = Describe("check of a scenario a user's test recorded with an unnamed runtime", func() {
	It("does not replay it with the reference agent, and names the test that does instead of a record command record refuses", func() {
		root := fixtureCopy("spawn/one-child")
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		// What -record writes for a RuntimeFunc: no runtime name, the tests' by.
		sc.Recorded.Runtime, sc.Recorded.By = "", recorder.ByTests
		Expect(sc.Save(dir)).To(Succeed())

		r := cli(root, nil, "check", dir, "--format", "json")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		s := got.Scenarios[0]
		Expect(s.Status).To(Equal("error"))
		Expect(s.Fix).To(BeEmpty(), "agentsnap record refuses it")
		Expect(s.Problems).To(HaveLen(1))
		Expect(s.Problems[0]).To(ContainSubstring(`it was recorded from a test (` + filepath.Join(dir, scenario.File) + ` recorded.by "agentsnap (go test)") by a runtime without a name, not by agentsnap's reference runtime, the only runtime the agentsnap CLI replays; ` +
			`replay it with the test that recorded it, which replays ` + dir + `: go test ./... from the module root`))
		Expect(s.Problems[0]).NotTo(ContainSubstring("agentsnap record"))
		Expect(s.Problems[0]).NotTo(ContainSubstring(`runtime ""`))
	})
})

var _ = Describe("check --update of a golden with a session the replay no longer has", func() {
	It("updates it with the warning review --accept gives", func() {
		GinkgoT().Setenv("CI", "") // check reads CI from the process: a CI job sets it
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		root := fixtureCopy("spawn/one-child")
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		golden := filepath.Join(dir, fixture.GoldenFile)
		b, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		extra := "\n== session 2: spawn of root via call_gone, depth 1 ==\nturn 1 (subagent)\n  user: gone\n"
		Expect(os.WriteFile(golden, append(b, extra...), 0o644)).To(Succeed())
		// What agentsnap record leaves when the agent no longer starts a
		// session: its log removed, the golden kept beside the proposal.
		Expect(os.WriteFile(golden+judge.ProposalSuffix, b, 0o644)).To(Succeed())

		r := cli(root, nil, "check", dir, "--update")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring("note: spawn/one-child: session 2: spawn of root via call_gone, depth 1: the session is in the golden but not in the replay: the agent no longer starts it, and the update removed it from " + golden))
		Expect(os.ReadFile(golden)).To(Equal(b))
		Expect(golden + judge.ProposalSuffix).NotTo(BeAnExistingFile())
	})
})
