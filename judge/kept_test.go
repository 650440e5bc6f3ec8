package judge_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A fixture opened without its logs (agentsnap serve's) is judged from what
// the replay kept of each recorded log as it derived its script: a session
// that replays as recorded is not read again, the others are. Its verdict
// is the one of the same fixture read whole, whatever it says.
var _ = Describe("the verdict of a fixture opened without its logs", func() {
	const child = "session.1.jsonl"
	// codeword copies fork/codeword, its child's last event (its turn/end)
	// edited by edit.
	codeword := func(edit func(last []byte) []byte) string {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "fork", "codeword")
		Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "fork", "codeword")))).To(Succeed())
		if edit != nil {
			editLast(filepath.Join(dir, child), edit)
		}
		return dir
	}
	replay := func(fx *fixture.Fixture, rt agentsnap.Runtime) *judge.Outcome {
		GinkgoHelper()
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: rt, Once: true})
		Expect(err).NotTo(HaveOccurred())
		return o
	}
	// verdicts replays dir opened (its logs read as their scripts are
	// derived, and judged from what was kept) and loaded whole, and
	// returns each verdict's report.
	verdicts := func(dir string, rt agentsnap.Runtime) (opened, loaded *judge.Outcome) {
		GinkgoHelper()
		fx, err := fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		opened = replay(fx, rt)
		fx, err = fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		return opened, replay(fx, rt)
	}
	same := func(dir string, rt agentsnap.Runtime) *judge.Outcome {
		GinkgoHelper()
		opened, loaded := verdicts(dir, rt)
		Expect(opened.Report()).To(Equal(loaded.Report()))
		Expect(opened.Passed()).To(Equal(loaded.Passed()))
		Expect(opened.Transcript).To(Equal(loaded.Transcript))
		return opened
	}

	It("passes a replay that matches, as the fixture read whole does", func() {
		o := same(codeword(nil), agent.Reference)
		Expect(o.Passed()).To(BeTrue(), o.Report())
	})

	It("names a session that differs from its recording only in its last event", func() {
		o := same(codeword(func(last []byte) []byte { return bytes.Replace(last, []byte("completed"), []byte("interrupted"), 1) }), agent.Reference)
		Expect(o.Differences).To(HaveLen(1))
		Expect(o.Differences[0].String()).To(Equal("session 1 (fork of root via call_fork_1): seq 36 (turn/end): data.reason.kind: golden \"interrupted\", replay \"completed\""))
	})

	It("names a session whose header differs from its recording, its events the same", func() {
		dir := codeword(nil)
		path := filepath.Join(dir, child)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, bytes.Replace(b, []byte(`"agentPreset":"default"`), []byte(`"agentPreset":"other"`), 1), 0o644)).To(Succeed())
		o := same(dir, agent.Reference)
		Expect(o.Differences).To(HaveLen(1))
		Expect(o.Differences[0].String()).To(Equal(`session 1 (fork of root via call_fork_1): header agentPreset: golden "other", replay "default"`))
	})

	It("names a drift and what follows it, every recorded session missing, and a session the recording lacks", func() {
		dir := codeword(nil)
		By("a drift: another prompt")
		var other agentsnap.RuntimeFunc = func(ctx context.Context, env *agentsnap.Env) error {
			sc := *env.Scenario
			sc.Prompts = append([]string{sc.Prompts[0] + " Answer in French."}, sc.Prompts[1:]...)
			env.Scenario = &sc
			return agent.Reference.Run(ctx, env)
		}
		Expect(same(dir, other).Drift).NotTo(BeNil())

		By("every recorded session missing: an agent that never calls")
		var idle agentsnap.RuntimeFunc = func(context.Context, *agentsnap.Env) error { return nil }
		o := same(dir, idle)
		Expect(o.Differences).To(HaveLen(2))
		Expect(o.Differences[1].Note).To(ContainSubstring("the replay never created this session"))

		By("a session the recording lacks: its fork child's log removed")
		Expect(os.Remove(filepath.Join(dir, child))).To(Succeed())
		golden := filepath.Join(dir, "transcript.golden")
		b, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(golden, b[:bytes.Index(b, []byte("== session 1"))], 0o644)).To(Succeed())
		o = same(dir, agent.Reference)
		Expect(o.Report()).To(ContainSubstring("extra session"))
	})

	// The verdict takes each session's events as the runtime wrote them
	// (seen.go): a session whose turn never ends, and one written to again
	// after its turn ended, are judged as the fixture read whole judges them.
	It("judges a session whose turn never completed, and one appended to after its turn ended, as the fixture read whole does", func() {
		dir := codeword(nil)
		By("the fork child's turn/end never written")
		var unfinished agentsnap.RuntimeFunc = func(ctx context.Context, env *agentsnap.Env) error {
			e := *env
			e.Store = dropping{Store: env.Store, drop: func(id string, ev *session.Event) bool {
				return id != "root" && ev.Type == session.TypeTurnEnd
			}}
			return agent.Reference.Run(ctx, &e)
		}
		o := same(dir, unfinished)
		Expect(o.Differences).To(HaveLen(1))
		Expect(o.Differences[0].String()).To(Equal("session 1 (fork of root via call_fork_1): the replay ends after 36 events; the recording goes on with seq 36 (turn/end) and 0 more"))

		By("an event appended to the fork child after its turn ended")
		var late agentsnap.RuntimeFunc = func(ctx context.Context, env *agentsnap.Env) error {
			if err := agent.Reference.Run(ctx, env); err != nil {
				return err
			}
			heads, err := env.Store.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			for _, h := range heads {
				if h.IsChild() {
					l, err := env.Store.Load(ctx, h.ID)
					Expect(err).NotTo(HaveOccurred())
					Expect(env.Store.Append(ctx, h.ID, []session.Event{{Type: "x/late", Seq: int64(len(l.Events)), Data: []byte(`{"note":"late"}`)}})).To(Succeed())
				}
			}
			return nil
		}
		o = same(dir, late)
		Expect(o.Differences).To(HaveLen(1))
		Expect(o.Transcript).To(ContainSubstring("event x/late"))
	})

	// The replay is served from the recording as it was read when the
	// scripts were derived, and judged against it: a log changed on disk
	// in between does not change the verdict of a session that replays as
	// served, and is an error for one that differs, whose difference would
	// be against another recording.
	It("judges the recording it served: a log changed during the replay is an error only for a session that differs", func() {
		changing := func(path string) agentsnap.RuntimeFunc {
			return func(ctx context.Context, env *agentsnap.Env) error {
				editLast(path, func(last []byte) []byte { return bytes.Replace(last, []byte(`"turn":2`), []byte(`"turn":9`), 1) })
				return agent.Reference.Run(ctx, env)
			}
		}
		dir := codeword(nil)
		fx, err := fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		o := replay(fx, changing(filepath.Join(dir, child)))
		Expect(o.Passed()).To(BeTrue(), o.Report())

		dir = codeword(func(last []byte) []byte { return bytes.Replace(last, []byte("completed"), []byte("interrupted"), 1) })
		fx, err = fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		_, err = judge.Replay(context.Background(), fx, judge.Options{Runtime: changing(filepath.Join(dir, child)), Once: true})
		Expect(err).To(MatchError("judge: fork/codeword: reading the recording for the verdict: " + filepath.Join(dir, child) + " changed since the replay began: the replay was served from the recording as it was read then, and is judged against it, so this session's verdict would compare it with another; run the replay again"))
	})

	// A log the verdict reads again is worded for what became of it: gone,
	// or there but not readable (the system's error kept), each with its
	// own advice.
	It("says a log it cannot read again for what it is: removed, or a directory in its place", func() {
		differing := func(last []byte) []byte { return bytes.Replace(last, []byte("completed"), []byte("interrupted"), 1) }
		for _, c := range []struct {
			what   string
			change func(path string)
			says   func(path string) string
		}{
			{"removed", func(path string) { Expect(os.Remove(path)).To(Succeed()) }, func(path string) string {
				return path + " was removed since the replay began: the replay was served from the recording as it was read then, and judging this session needs it again; restore it and run the replay again"
			}},
			{"a directory", func(path string) { Expect(os.Remove(path)).To(Succeed()); Expect(os.Mkdir(path, 0o755)).To(Succeed()) }, func(path string) string {
				return path + " could not be read again (session: read " + path + ": is a directory): judging this session against the recording the replay was served needs the file; make it a readable log file again and run the replay again"
			}},
		} {
			dir := codeword(differing)
			path := filepath.Join(dir, child)
			fx, err := fixture.Open(dir)
			Expect(err).NotTo(HaveOccurred())
			var changing agentsnap.RuntimeFunc = func(ctx context.Context, env *agentsnap.Env) error {
				c.change(path)
				return agent.Reference.Run(ctx, env)
			}
			_, err = judge.Replay(context.Background(), fx, judge.Options{Runtime: changing, Once: true})
			Expect(err).To(MatchError("judge: fork/codeword: reading the recording for the verdict: "+c.says(path)), c.what)
		}
	})

	// The verdict compares no header's createdAt (nor any event's time): a
	// log written again with the same events and another createdAt is the
	// recording served, and its session is judged as the one read whole.
	It("judges a log written again during the replay with only another createdAt as read", func() {
		dir := codeword(func(last []byte) []byte { return bytes.Replace(last, []byte("completed"), []byte("interrupted"), 1) })
		path := filepath.Join(dir, child)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		loaded := replay(fx, agent.Reference)
		fx, err = fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		var rewriting agentsnap.RuntimeFunc = func(ctx context.Context, env *agentsnap.Env) error {
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			rewritten := bytes.Replace(b, []byte(`"createdAt":946684800000`), []byte(`"createdAt":946684899999`), 1)
			Expect(rewritten).NotTo(Equal(b))
			Expect(os.WriteFile(path, rewritten, 0o644)).To(Succeed())
			return agent.Reference.Run(ctx, env)
		}
		o := replay(fx, rewriting)
		Expect(o.Report()).To(Equal(loaded.Report()))
		Expect(o.Differences).To(HaveLen(1))
	})

	// A session the replay never created is judged from its header, which
	// the replay was served with: its file is not read again.
	It("judges a session the replay never reached from the header it served, its log changed since", func() {
		dir := codeword(nil)
		var idle agentsnap.RuntimeFunc = func(context.Context, *agentsnap.Env) error { return nil }
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		loaded := replay(fx, idle)
		fx, err = fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		var editing agentsnap.RuntimeFunc = func(context.Context, *agentsnap.Env) error {
			editLast(filepath.Join(dir, child), func(last []byte) []byte { return bytes.Replace(last, []byte(`"turn":2`), []byte(`"turn":9`), 1) })
			return nil
		}
		o := replay(fx, editing)
		Expect(o.Report()).To(Equal(loaded.Report()))
		Expect(o.Differences).To(HaveLen(2))
		Expect(o.Differences[1].Note).To(ContainSubstring("the replay never created this session"))
	})
})

// dropping is a store that does not write the events drop picks.
type dropping struct {
	persistence.Store
	drop func(id string, e *session.Event) bool
}

func (d dropping) Append(ctx context.Context, id string, events []session.Event) error {
	kept := slices.DeleteFunc(slices.Clone(events), func(e session.Event) bool { return d.drop(id, &e) })
	return d.Store.Append(ctx, id, kept)
}

// editLast rewrites the last line of the log at path with edit.
func editLast(path string, edit func(last []byte) []byte) {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	i := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	edited := edit(bytes.Clone(b[i:]))
	Expect(edited).NotTo(Equal(b[i:]), "the edit changes the line")
	Expect(os.WriteFile(path, append(b[:i:i], edited...), 0o644)).To(Succeed())
}
