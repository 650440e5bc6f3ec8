package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Trust as a new user meets it: a replay that is wrong in a small way must
// fail, say what is wrong once, and never rewrite a golden from it.

// storeWrapper returns a runtime that runs the reference runtime through a
// store wrapped by wrap: a runtime whose persistence has a bug.
func storeWrapper(wrap func(env *agentsnap.Env) persistence.Store) agentsnap.Runtime {
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		e := *env
		e.Store = wrap(env)
		return agent.Reference.Run(ctx, &e)
	})
}

// losesLastEvent is a store that never writes the root's last turn/end:
// the replayed root lacks only its final event.
type losesLastEvent struct {
	persistence.Store
	lastTurn int

	mu   sync.Mutex
	root string
}

func (s *losesLastEvent) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if !h.IsChild() {
		s.mu.Lock()
		s.root = h.ID
		s.mu.Unlock()
	}
	return s.Store.Create(ctx, h, seed)
}

func (s *losesLastEvent) Append(ctx context.Context, id string, events []session.Event) error {
	s.mu.Lock()
	root := s.root
	s.mu.Unlock()
	if id != root {
		return s.Store.Append(ctx, id, events)
	}
	kept := make([]session.Event, 0, len(events))
	for _, e := range events {
		var d session.TurnEndData
		if e.Type == session.TypeTurnEnd && e.Decode(&d) == nil && d.Turn == s.lastTurn {
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		return nil
	}
	return s.Store.Append(ctx, id, kept)
}

// dropsSeedLength is a store that forgets a fork child's seedLength but
// keeps its seed: the child's events are all there, its header is wrong.
type dropsSeedLength struct{ persistence.Store }

func (s dropsSeedLength) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	h.SeedLength = 0
	return s.Store.Create(ctx, h, seed)
}

func replayWith(dir string, rt agentsnap.Runtime) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: rt})
	Expect(err).NotTo(HaveOccurred())
	return o
}

var _ = Describe("a replay that is wrong in a small way", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	// expectNoUpdate checks that UpdateGolden refuses o and leaves the
	// golden as it was, although the transcript differs from it.
	expectNoUpdate := func(o *harness.Outcome) {
		GinkgoHelper()
		golden := filepath.Join(o.Fixture.Dir, fixture.GoldenFile)
		before, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Transcript).NotTo(Equal(string(before)), "the transcript shows the bug, so an update would change the golden")
		res := judge.UpdateGolden(o)
		Expect(res.Updated).To(BeFalse())
		Expect(res.Message).To(ContainSubstring("not updating " + golden + ": the replay itself fails"))
		Expect(os.ReadFile(golden)).To(Equal(before))
	}

	It("fails when the replay lacks only its last event, and is not made a golden", func() {
		dir := copyFixture("spawn/one-child")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		n := len(fx.Logs[0].Events)
		rt := storeWrapper(func(env *agentsnap.Env) persistence.Store {
			return &losesLastEvent{Store: env.Store, lastTurn: len(env.Scenario.Prompts)}
		})
		o := replayWith(dir, rt)
		Expect(o.Replayed[0].Events).To(HaveLen(n-1), "the runtime under test lost exactly one event")
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Differences).To(ConsistOf(SatisfyAll(
			HaveField("Session", "root"),
			HaveField("Seq", int64(n-1)),
			HaveField("Type", session.TypeTurnEnd),
		)))
		Expect(o.Report()).To(ContainSubstring(
			"root (root session): the replay ends after %d events; the recording goes on with seq %d (turn/end) and 0 more", n-1, n-1))
		expectNoUpdate(o)
	})

	It("fails when a fork child lost its seedLength, naming the header member, and is not made a golden", func() {
		dir := copyFixture("fork/codeword")
		o := replayWith(dir, storeWrapper(func(env *agentsnap.Env) persistence.Store { return dropsSeedLength{env.Store} }))
		Expect(o.Replayed[1].Header.SeedLength).To(BeZero(), "the runtime under test dropped it")
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Differences).To(ConsistOf(SatisfyAll(
			HaveField("Session", "session 1"),
			HaveField("Seq", int64(-1)),
			HaveField("Field", "seedLength"),
			HaveField("Golden", "12"),
			HaveField("Replay", "(absent)"),
		)))
		Expect(o.Report()).To(ContainSubstring("session 1 (fork of root via call_fork_1): header seedLength: golden 12, replay (absent)"))
		expectNoUpdate(o)
	})

	It("names a system prompt whose text changed but not its length as drift", func() {
		dir := copyFixture("fork/codeword")
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		var cfg map[string]any
		Expect(json.Unmarshal(sc.Agent, &cfg)).To(Succeed())
		system := cfg["system"].(string)
		edited := strings.Replace(system, "careful assistant", "careful assistent", 1)
		Expect(edited).NotTo(Equal(system))
		Expect(len(edited)).To(Equal(len(system)))
		cfg["system"] = edited
		sc.Agent, err = json.Marshal(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Save(dir)).To(Succeed())

		o := replay(dir)
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Drift).NotTo(BeNil(), "a plain log difference would hide that the agent sends another prompt")
		Expect(o.Drift.Session).To(Equal("root"))
		Expect(o.Drift.Call).To(Equal(1))
		Expect(o.Drift.Changes).To(ConsistOf(HavePrefix("the system prompt changed")))
		Expect(o.Report()).To(ContainSubstring("request drift: root (root session), model call 1 (turn 1 step 1): the system prompt changed (the same %d characters long, other text)", len(system)))
	})
})

var _ = Describe("a child log whose header lost parentCallId", func() {
	It("is reported once, as a header difference, with the driver's note", func() {
		dir := copyFixture("fork/codeword")
		child := filepath.Join(dir, "session.1.jsonl")
		editLine(child, 1, func(l string) string {
			Expect(l).To(ContainSubstring(`"parentCallId":"call_fork_1",`))
			return strings.Replace(l, `"parentCallId":"call_fork_1",`, "", 1)
		})
		o := replay(dir)
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Differences).To(ConsistOf(SatisfyAll(
			HaveField("Session", "session 1"),
			HaveField("Seq", int64(-1)),
			HaveField("Field", "parentCallId"),
			HaveField("Golden", "(absent)"),
			HaveField("Replay", `"call_fork_1"`),
		)))
		report := o.Report()
		Expect(strings.Count(report, `header parentCallId: golden (absent), replay "call_fork_1"`)).To(Equal(1))
		Expect(report).NotTo(ContainSubstring("never created"))
		Expect(report).NotTo(ContainSubstring("extra session"))
		Expect(o.Notes).To(ConsistOf(ContainSubstring("has no parentCallId (a dsh log?); live child root/call_fork_1 (created by call \"call_fork_1\") was routed to it by first-call order")))
		Expect(report).To(ContainSubstring("replay notes:\n  fakellm: session root/#1 (fork; session.1.jsonl) has no parentCallId"))
	})
})

var _ = Describe("two child logs of one parent whose headers lost parentCallId", func() {
	It("pair with the replayed children in order, each reported as its own header difference", func() {
		dir := copyFixture("spawn/two-sequential")
		for i, call := range []string{"call_france", "call_japan"} {
			editLine(filepath.Join(dir, fixture.ChildLog(i+1)), 1, func(l string) string {
				Expect(l).To(ContainSubstring(`"parentCallId":"` + call + `",`))
				return strings.Replace(l, `"parentCallId":"`+call+`",`, "", 1)
			})
		}
		o := replay(dir)
		Expect(o.Differences).To(HaveExactElements(
			SatisfyAll(HaveField("Session", "session 1"), HaveField("Field", "parentCallId"), HaveField("Replay", `"call_france"`)),
			SatisfyAll(HaveField("Session", "session 2"), HaveField("Field", "parentCallId"), HaveField("Replay", `"call_japan"`)),
		))
	})
})

var _ = Describe("obsolete goldens", func() {
	It("are goldens of scenarios never replayed, not of scenarios that failed", func() {
		root := GinkgoT().TempDir()
		for _, name := range []string{"spawn/one-child", "fork/codeword"} {
			copyInto(root, name, name)
		}
		drifted := filepath.Join(root, "spawn/one-child")
		editLine(filepath.Join(drifted, "session.1.jsonl"), 3, func(l string) string { return strings.Replace(l, "largest", "smallest", 1) })
		Expect(replay(drifted).Passed()).To(BeFalse())

		summary := judge.GoldenSummary(true, root)
		Expect(summary).NotTo(ContainSubstring(filepath.Join(drifted, fixture.GoldenFile)), "a failed scenario still checks its golden")
		Expect(summary).To(ContainSubstring("golden obsolete: " + filepath.Join(root, "fork/codeword", fixture.GoldenFile) + " (no scenario checks it"))
	})

	// suitekit.ReportGoldens runs after a suite; a --dry-run replays
	// nothing, so listing every golden as obsolete would be noise. The
	// report is a ReportAfterSuite closure, so the spec runs a real suite
	// binary (cached by go test; a few seconds).
	It("are not reported after a dry run of a suite", func() {
		if _, err := exec.LookPath("go"); err != nil {
			Skip("no go command")
		}
		cmd := exec.Command("go", "test", "-count=1", "-v", "./suites/spawn", "-args", "-ginkgo.dry-run", "-ginkgo.no-color")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(MatchRegexp(`Ran [1-9]\d* of \d+ Specs`), "the dry run listed the suite's specs")
		Expect(string(out)).NotTo(ContainSubstring("golden obsolete"))
	})
})

// acme is a team's own runtime: named, so the commands a failure prints
// run the team's own test with -record.
type acme struct{ agentsnap.Runtime }

func (acme) Name() string { return "acme" }

// acmeFixture copies spawn/one-child under tmp as if acme had recorded
// it, then changes its child's prompt so the replay fails.
func acmeFixture(tmp string) (string, error) {
	dir := filepath.Join(tmp, "spawn", "one-child")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "spawn", "one-child"))); err != nil {
		return "", err
	}
	sc, err := scenario.Load(dir)
	if err != nil {
		return "", err
	}
	if sc.Recorded == nil {
		sc.Recorded = &scenario.Recorded{}
	}
	sc.Recorded.Runtime = "acme"
	if err := sc.Save(dir); err != nil {
		return "", err
	}
	child := filepath.Join(dir, "session.1.jsonl")
	b, err := os.ReadFile(child)
	if err != nil {
		return "", err
	}
	return dir, os.WriteFile(child, []byte(strings.Replace(string(b), "largest", "smallest", 1)), 0o644)
}

func TestCheckFailureOfAnOwnRuntimeShowsTheTestCommandThatRecords(t *testing.T) {
	dir, err := acmeFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &captured{TB: t}
	harness.Check(c, dir, harness.Options{Runtime: acme{agent.Reference}})
	want := "re-record the scenario:\n  go test ./harness -run '^TestCheckFailureOfAnOwnRuntimeShowsTheTestCommandThatRecords$' -record='^spawn/one-child$'"
	if len(c.errs) == 0 || !strings.Contains(c.errs[0], want) {
		t.Fatalf("harness.Check of a failing replay reported %q, want it to contain %q", c.errs, want)
	}
	if strings.Contains(strings.Join(c.errs, "\n"), "agentsnap record") {
		t.Fatalf("the CLI records only the reference runtime, yet the failure tells the user to use it: %q", c.errs)
	}
}

func TestCheckOfAMissingGoldenShowsTheTestCommandThatUpdates(t *testing.T) {
	t.Setenv("CI", "")
	dir := filepath.Join(t.TempDir(), "spawn", "one-child")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "spawn", "one-child"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, fixture.GoldenFile)); err != nil {
		t.Fatal(err)
	}
	c := &captured{TB: t}
	harness.Check(c, dir, harness.Options{Runtime: agent.Reference})
	want := "create it from the replay with:\n  go test ./harness -run '^TestCheckOfAMissingGoldenShowsTheTestCommandThatUpdates$' -update"
	if len(c.errs) != 1 || !strings.Contains(c.errs[0], want) {
		t.Fatalf("harness.Check without a golden reported %q, want it to contain %q", c.errs, want)
	}
}

var _ = Describe("failure commands under Ginkgo", func() {
	It("re-run the spec through ginkgo with -record for a team's own runtime", func() {
		dir, err := acmeFixture(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: acme{agent.Reference}})
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Report()).To(ContainSubstring("re-record the scenario:\n  go tool ginkgo --focus=" + thisSpecFocus() + " ./harness -- -record='^spawn/one-child$'"))
	})
})
