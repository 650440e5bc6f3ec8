package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// copyInto copies the committed fixture src (CATEGORY/NAME) into the
// fixtures tree root as dst (CATEGORY/NAME: the category is the folder it
// is in) and returns the copy's folder.
func copyInto(root, src, dst string) string {
	GinkgoHelper()
	dir := filepath.Join(root, dst)
	Expect(os.MkdirAll(filepath.Dir(dir), 0o755)).To(Succeed())
	Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", src)))).To(Succeed())
	return dir
}

// copyFixture copies a committed fixture into a temporary fixtures tree and
// returns the copy's folder.
func copyFixture(name string) string { return copyInto(GinkgoT().TempDir(), name, name) }

func replay(dir string) *harness.Outcome {
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
	Expect(err).NotTo(HaveOccurred())
	return o
}

// editLine rewrites line n (1-based) of a file with edit.
func editLine(path string, n int, edit func(string) string) {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(string(b), "\n")
	lines[n-1] = edit(lines[n-1])
	Expect(os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)).To(Succeed())
}

func lineOf(path, typ string, nth int) int {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"type":"`+typ+`"`) {
			if nth--; nth == 0 {
				return i + 1
			}
		}
	}
	Fail("no such line")
	return 0
}

var _ = Describe("replaying a fixture", func() {
	It("matches an untouched recording", func() {
		o := replay(copyFixture("fork/codeword"))
		Expect(o).To(harness.MatchRecording())
		Expect(o.Calls).To(Equal(4))
		Expect(o.Transcript).To(ContainSubstring("== session 1: fork of root via call_fork_1, depth 1 =="))
	})

	It("reports the first difference by session, seq and field", func() {
		dir := copyFixture("fork/codeword")
		child := filepath.Join(dir, "session.1.jsonl")
		n := lineOf(child, session.TypeUserMessage, 2) // the child's own prompt
		editLine(child, n, func(l string) string {
			return strings.Replace(l, "What is the project codeword?", "What was the codeword?", 1)
		})
		o := replay(dir)
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Differences).To(ContainElement(SatisfyAll(
			HaveField("Session", "session 1"),
			HaveField("Lineage", "fork of root via call_fork_1"),
			HaveField("Seq", int64(n-2)),
			HaveField("Field", "data.content[0].text"),
			HaveField("Golden", `"What was the codeword? Reply with that one word."`),
		)))
		Expect(o.Report()).To(ContainSubstring("go tool agentsnap record " + dir))
	})

	It("names request drift before any downstream difference", func() {
		dir := copyFixture("fork/codeword")
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		sc.Agent = json.RawMessage(`{"preset":"default","system":"You are a careful assistant. When asked to delegate, use the subagent tools; a subagent's answer comes back as the tool result.","tools":["subagent_fork","add","subagent_spawn"]}`)
		Expect(sc.Save(dir)).To(Succeed())
		o := replay(dir)
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the tools changed (added: add; removed: none)"))
		report := o.Report()
		Expect(strings.Index(report, "request drift")).To(BeNumerically("<", strings.Index(report, "log differences")))
		Expect(report).To(ContainSubstring("re-record the scenario:\n  go tool agentsnap record"))
	})

	It("refuses a fixture whose last line is torn, naming file and line", func() {
		dir := copyFixture("spawn/one-child")
		path := filepath.Join(dir, "session.1.jsonl")
		b, _ := os.ReadFile(path)
		Expect(os.WriteFile(path, b[:len(b)-20], 0o644)).To(Succeed())
		_, err := fixture.Load(dir)
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err.Error()).To(MatchRegexp(`session\.1\.jsonl:\d+: the last line is incomplete`))
	})

	It("names the first bad log in file order, however the logs are read", func() {
		dir := copyFixture("spawn/two-sequential")
		one, two := filepath.Join(dir, "session.1.jsonl"), filepath.Join(dir, "session.2.jsonl")
		b, _ := os.ReadFile(one)
		Expect(os.WriteFile(one, b[:len(b)-20], 0o644)).To(Succeed())
		Expect(os.WriteFile(two, []byte("not a log\n"), 0o644)).To(Succeed())
		_, err := fixture.Load(dir)
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err.Error()).To(MatchRegexp(`session\.1\.jsonl:\d+: the last line is incomplete`))
	})

	It("refuses child logs that are not numbered in lineage order", func() {
		dir := copyFixture("spawn/two-sequential")
		one, two := filepath.Join(dir, "session.1.jsonl"), filepath.Join(dir, "session.2.jsonl")
		Expect(os.Rename(one, one+".tmp")).To(Succeed())
		Expect(os.Rename(two, one)).To(Succeed())
		Expect(os.Rename(one+".tmp", two)).To(Succeed())
		_, err := fixture.Load(dir)
		Expect(err).To(MatchError(ContainSubstring("session.1.jsonl holds session root/call_japan, but lineage order puts root/call_france there")))
	})
})

var _ = Describe("goldens", func() {
	var dir string
	BeforeEach(func() {
		dir = copyFixture("spawn/one-child")
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("fail with the diff and the update command when the transcript changed", func() {
		golden := filepath.Join(dir, fixture.GoldenFile)
		editLine(golden, 4, func(string) string { return "  step one" })
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		matcher := harness.MatchGolden(GinkgoTB())
		ok, err := matcher.Match(o)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		msg := matcher.FailureMessage(o)
		Expect(msg).To(ContainSubstring("[diff -golden +replay]\n"))
		Expect(msg).To(ContainSubstring("-  step one\n+  step 1\n"))
		Expect(msg).To(ContainSubstring("If the change is intended, update the golden with:\n  go tool ginkgo --focus="+thisSpecFocus()+" ./harness -- -update"), "the command that reruns this very test, from the module root")
	})

	It("fail when missing, with the command that creates them", func() {
		Expect(os.Remove(filepath.Join(dir, fixture.GoldenFile))).To(Succeed())
		res := judge.CompareGolden(replay(dir))
		Expect(res.Message).To(ContainSubstring("transcript.golden is missing; create it from the replay with:\n  go tool agentsnap check --update " + dir))
	})

	It("are rewritten atomically under -update, and nothing else is", func() {
		DeferCleanup(harness.SetUpdate(true))
		golden := filepath.Join(dir, fixture.GoldenFile)
		editLine(golden, 4, func(string) string { return "  step one" })
		logs := snapshot(dir, "*.jsonl")
		o := replay(dir)
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(os.ReadFile(golden)).To(Equal([]byte(o.Transcript)))
		Expect(snapshot(dir, "*.jsonl")).To(Equal(logs), "session logs are never rewritten")
		leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
		Expect(leftovers).To(BeEmpty())
		Expect(judge.GoldenSummary(false)).To(ContainSubstring("golden changed:  " + golden))
	})

	It("are not rewritten under CI unless forced", func() {
		DeferCleanup(harness.SetUpdate(true))
		GinkgoT().Setenv("CI", "true")
		golden := filepath.Join(dir, fixture.GoldenFile)
		editLine(golden, 4, func(string) string { return "  step one" })
		before, _ := os.ReadFile(golden)
		matcher := harness.MatchGolden(GinkgoTB())
		ok, _ := matcher.Match(replay(dir))
		Expect(ok).To(BeFalse())
		Expect(matcher.FailureMessage(nil)).To(ContainSubstring("refusing to update goldens with CI=true"))
		Expect(os.ReadFile(golden)).To(Equal(before))

		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "1")
		Expect(replay(dir)).To(harness.MatchGolden(GinkgoTB()))
		Expect(os.ReadFile(golden)).NotTo(Equal(before))
	})

	It("are not rewritten from a replay that does not match its recording", func() {
		DeferCleanup(harness.SetUpdate(true))
		child := filepath.Join(dir, "session.1.jsonl")
		editLine(child, 3, func(l string) string { return strings.Replace(l, "largest", "smallest", 1) })
		golden := filepath.Join(dir, fixture.GoldenFile)
		before, _ := os.ReadFile(golden)
		matcher := harness.MatchGolden(GinkgoTB())
		ok, _ := matcher.Match(replay(dir))
		Expect(ok).To(BeFalse())
		Expect(matcher.FailureMessage(nil)).To(ContainSubstring("not updating"))
		Expect(os.ReadFile(golden)).To(Equal(before))
	})
})

var _ = Describe("the inventory check", func() {
	It("fails on a scenario missing a file, in any category", func() {
		root := GinkgoT().TempDir()
		for _, name := range []string{"spawn/one-child", "fork/codeword"} {
			copyInto(root, name, name)
		}
		Expect(fixture.Inventory(root)).To(BeEmpty())

		Expect(os.Remove(filepath.Join(root, "fork/codeword", fixture.GoldenFile))).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(root, "stray", "x"), 0o755)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(root, "new", "y"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "new", "y", fixture.ScenarioFile), []byte(`{"prompts": ["hi"]}`), 0o644)).To(Succeed())
		problems := fixture.Inventory(root)
		Expect(problems).To(ConsistOf(
			ContainSubstring("fork/codeword: missing transcript.golden; create it from the replay with the test's -update, or with: go tool agentsnap check --update "+filepath.Join(root, "fork/codeword")),
			ContainSubstring("new/y: missing session.jsonl; record the scenario (a recording writes its logs and its golden)"),
		), "an empty folder is no scenario; one with scenario.json but no logs needs a recording, not a golden")

		Expect(os.WriteFile(filepath.Join(root, "stray", "x", fixture.GoldenFile), nil, 0o644)).To(Succeed())
		Expect(fixture.Inventory(root)).To(ConsistOf(ContainSubstring("stray/x holds transcript.golden but no scenario.json")))
	})
})

// snapshot returns the bytes of the files matching pattern in dir.
func snapshot(dir, pattern string) map[string][]byte {
	paths, _ := filepath.Glob(filepath.Join(dir, pattern))
	out := map[string][]byte{}
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		out[filepath.Base(p)] = bytes.Clone(b)
	}
	return out
}
