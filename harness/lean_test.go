package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// watching is the reference runtime, noting whether the fixture held its
// logs while it ran.
type watching struct {
	fx   *fixture.Fixture
	held bool
}

func (w *watching) Name() string { return agent.ReferenceName }

func (w *watching) Validate(sc *scenario.Scenario) ([]string, error) {
	return agentsnap.Validate(agent.Reference, sc)
}

func (w *watching) Run(ctx context.Context, env *agentsnap.Env) error {
	w.held = w.fx.Logs != nil
	return agent.Reference.Run(ctx, env)
}

func encodeAll(logs []*session.Log) string {
	var b []byte
	for _, l := range logs {
		b = append(b, session.Encode(&l.Header, l.Events)...)
	}
	return string(b)
}

// A fixture opened without its logs (agentsnap serve's) replays holding
// none of them, and its verdict is the one of the fixture loaded whole.
var _ = Describe("a replay of a fixture opened without its logs", func() {
	dirs, _ := filepath.Glob("../fixtures/*/*")

	It("holds no log while the runtime runs, and its verdict is the whole fixture's, on every fixture of the repo", func() {
		Expect(dirs).NotTo(BeEmpty())
		for _, dir := range dirs {
			whole, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			want, err := judge.Replay(context.Background(), whole, judge.Options{Runtime: agent.Reference, Once: true})
			Expect(err).NotTo(HaveOccurred(), dir)

			lean, err := fixture.Open(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(lean.Logs).To(BeNil())
			Expect(lean.LogPaths()).To(HaveLen(len(whole.Logs)))
			rt := &watching{fx: lean}
			got, err := judge.Replay(context.Background(), lean, judge.Options{Runtime: rt, Once: true})
			Expect(err).NotTo(HaveOccurred(), dir)
			Expect(rt.held).To(BeFalse(), "%s: the fixture's logs were in memory while the runtime ran", dir)

			Expect(got.Passed()).To(BeTrue(), "%s: %s", dir, got.Report())
			Expect(got.Report()).To(Equal(want.Report()), dir)
			Expect(got.Transcript).To(Equal(want.Transcript), dir)
			Expect(encodeAll(got.Replayed)).To(Equal(encodeAll(want.Replayed)), dir)
			Expect(lean.Logs).To(BeNil(), "%s: the verdict read the recording log by log, keeping none", dir)
		}
	})
})

var _ = Describe("the errors of a fixture opened without its logs", func() {
	// copyFixture copies the fixture at src into a fresh CATEGORY/NAME.
	copyFixture := func(src string) string {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), filepath.Base(filepath.Dir(src)), filepath.Base(src))
		Expect(os.CopyFS(dir, os.DirFS(src))).To(Succeed())
		return dir
	}
	replay := func(dir string) error {
		GinkgoHelper()
		fx, err := fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		_, err = judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference, Once: true})
		return err
	}

	It("names a log's line that does not parse, before the runtime runs, and says what to do", func() {
		dir := copyFixture("../fixtures/parallel/fan-out")
		p := filepath.Join(dir, "session.2.jsonl")
		b, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		lines := strings.SplitAfter(string(b), "\n")
		lines[2] = "{not json\n"
		Expect(os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)).To(Succeed())
		err = replay(dir)
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err).To(MatchError(ContainSubstring(p + ":3")))
		Expect(err).To(MatchError(ContainSubstring("restore the file from version control, or re-record the scenario")))
		_, loadErr := fixture.Load(dir)
		Expect(err.Error()).To(Equal("judge: "+loadErr.Error()), "said as fixture.Load says it")
	})

	It("refuses a log with a torn last line, naming it", func() {
		dir := copyFixture("../fixtures/parallel/fan-out")
		p := filepath.Join(dir, "session.1.jsonl")
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		Expect(err).NotTo(HaveOccurred())
		_, err = f.WriteString(`{"type":"turn/start","seq":`)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Close()).To(Succeed())
		err = replay(dir)
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err).To(MatchError(ContainSubstring(p)))
		Expect(err).To(MatchError(ContainSubstring("re-record the scenario")))
		_, loadErr := fixture.Load(dir)
		Expect(err.Error()).To(Equal("judge: "+loadErr.Error()), "said as fixture.Load says it")
	})

	It("refuses logs whose files are not numbered in lineage order, for the verdict", func() {
		dir := copyFixture("../fixtures/parallel/fan-out")
		a, b := filepath.Join(dir, "session.1.jsonl"), filepath.Join(dir, "session.2.jsonl")
		tmp := filepath.Join(dir, "swap")
		Expect(os.Rename(a, tmp)).To(Succeed())
		Expect(os.Rename(b, a)).To(Succeed())
		Expect(os.Rename(tmp, b)).To(Succeed())
		err := replay(dir)
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err).To(MatchError(ContainSubstring("lineage order puts")))
		Expect(err).To(MatchError(ContainSubstring("reading the recording for the verdict")))
	})

	It("opens a fixture as Load does, but for its logs: what needs no log is checked at once", func() {
		dir := copyFixture("../fixtures/parallel/fan-out")
		Expect(os.Remove(filepath.Join(dir, "session.4.jsonl"))).To(Succeed())
		_, err := fixture.Open(dir)
		Expect(err).To(MatchError(ContainSubstring("session.4.jsonl is missing")), "transcript.golden shows the session")
		Expect(os.WriteFile(filepath.Join(dir, "session.7.jsonl"), nil, 0o644)).To(Succeed())
		_, err = fixture.Open(dir)
		Expect(err).To(MatchError(ContainSubstring("child logs are numbered from 1 without a gap")))
	})
})
