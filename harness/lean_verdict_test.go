package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/held"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// writeWideScenario records CATEGORY/wide under root: a root that spawns n
// children in one step, each answering in a few words, then reports.
func writeWideScenario(root, category string, n int) string {
	GinkgoHelper()
	dir := filepath.Join(root, category, "wide")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	sc := &scenario.Scenario{
		Description: fmt.Sprintf("generated: a root spawning %d children at once", n),
		Prompts:     []string{"Ask every helper at once, then report."},
		Agent:       json.RawMessage(`{"preset":"default","system":"You are a wide agent.","tools":["subagent_spawn"]}`),
		MaxDepth:    2,
	}
	pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{}}
	var calls []playbook.ToolCall
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		args, _ := json.Marshal(map[string]string{"description": "Helper", "prompt": fmt.Sprintf("Say word %d.", i)})
		calls = append(calls, playbook.ToolCall{ID: id, Name: "subagent_spawn", Arguments: args})
		pb.Sessions[id] = []*playbook.Turn{{Text: words(i, 8)}}
	}
	pb.Sessions["root"] = []*playbook.Turn{{ToolCalls: calls}, {Text: "Every helper answered."}}
	Expect(sc.Save(dir)).To(Succeed())
	pbPath := filepath.Join(dir, fixture.PlaybookFile)
	b, err := json.MarshalIndent(pb, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(pbPath, b, 0o644)).To(Succeed())
	clock := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	_, err = recorder.Record(context.Background(), dir, recorder.Options{
		Runtime: agent.Reference, Driver: playbook.NewDriver(pb, pbPath), Provider: "playbook", Model: "playbook", By: "agentsnap test", Clock: clock,
	})
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// editLog rewrites the log file of dir with edit, which must change it.
func editLog(dir, file string, edit func(string) string) {
	GinkgoHelper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	Expect(err).NotTo(HaveOccurred())
	after := edit(string(b))
	Expect(after).NotTo(Equal(string(b)), "%s: the edit changed nothing", p)
	Expect(os.WriteFile(p, []byte(after), 0o644)).To(Succeed())
}

// A verdict the recording read log by log must be the one of the
// recording in memory, whatever it finds.
var _ = Describe("the verdict of a fixture opened without its logs", func() {
	// copyTo copies the fixture at src to root/category/name.
	copyTo := func(src, root, category string) string {
		GinkgoHelper()
		dir := filepath.Join(root, category, filepath.Base(src))
		Expect(os.CopyFS(dir, os.DirFS(src))).To(Succeed())
		return dir
	}
	// Edits a replay does not match: each changes what the agent is
	// compared with, and the verdicts say so.
	redigest := func(s string) string { return strings.Replace(s, `"systemDigest":"`, `"systemDigest":"0`, 1) }
	dropLast := func(s string) string {
		lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
		return strings.Join(lines[:len(lines)-1], "")
	}
	type edited struct{ dir, what string }
	variants := func(src, root string) []edited {
		GinkgoHelper()
		fx, err := fixture.Open(src)
		Expect(err).NotTo(HaveOccurred())
		cat, last := fx.Category(), filepath.Base(fx.LogPaths()[len(fx.LogPaths())-1])
		other := "errors"
		if cat == "errors" {
			other = "parallel"
		}
		out := []edited{{copyTo(src, filepath.Join(root, "as-recorded"), cat), "as recorded"}}
		d := copyTo(src, filepath.Join(root, "drift"), cat)
		editLog(d, last, redigest)
		editLog(d, "session.jsonl", redigest)
		out = append(out, edited{d, "drift in the root and in " + last})
		d = copyTo(src, filepath.Join(root, "short"), cat)
		editLog(d, last, dropLast)
		out = append(out, edited{d, last + " without its last event"})
		out = append(out, edited{copyTo(src, filepath.Join(root, "moved"), other), "moved to " + other + "/"})
		if len(fx.LogPaths()) > 1 {
			// The replay then creates a session the recording has not.
			d = copyTo(src, filepath.Join(root, "lost"), cat)
			Expect(os.Remove(filepath.Join(d, last))).To(Succeed())
			Expect(os.Remove(filepath.Join(d, fixture.GoldenFile))).To(Succeed())
			out = append(out, edited{d, "without " + last})
		}
		return out
	}

	It("is the verdict of the logs in memory, byte for byte, on every fixture of the repo and on one of many sessions, each edited to fail", func() {
		root := GinkgoT().TempDir()
		srcs, _ := filepath.Glob("../fixtures/*/*")
		srcs = append(srcs, writeWideScenario(filepath.Join(root, "gen"), "spawn", 70))
		var runs []edited
		for _, src := range srcs {
			runs = append(runs, variants(src, filepath.Join(root, "variants", filepath.Base(filepath.Dir(src))))...)
		}
		tool := copyTo("../fixtures/billing/refund-flow", filepath.Join(root, "tool"), "billing")
		editLog(tool, "session.jsonl", func(s string) string {
			return strings.Replace(s, `order:A-1042\"}","result"`, `order:A-1043\"}","result"`, 1)
		})
		runs = append(runs, edited{tool, "a recorded tool called with other arguments"})
		seen := map[string]int{}
		for _, r := range runs {
			whole, err := fixture.Load(r.dir)
			Expect(err).NotTo(HaveOccurred(), r.what)
			want, wantErr := judge.Replay(context.Background(), whole, judge.Options{Runtime: agent.Reference, Once: true})
			lean, err := fixture.Open(r.dir)
			Expect(err).NotTo(HaveOccurred(), r.what)
			got, gotErr := judge.Replay(context.Background(), lean, judge.Options{Runtime: agent.Reference, Once: true})
			if wantErr != nil {
				Expect(gotErr).To(MatchError(wantErr.Error()), "%s: %s", r.dir, r.what)
				continue
			}
			Expect(gotErr).NotTo(HaveOccurred(), "%s: %s", r.dir, r.what)
			Expect(lean.Logs).To(BeNil(), "%s: the verdict kept the recording", r.dir)
			Expect(got.Report()).To(Equal(want.Report()), "%s: %s", r.dir, r.what)
			Expect(got.Drift).To(Equal(want.Drift), r.dir)
			Expect(got.Differences).To(Equal(want.Differences), r.dir)
			Expect(got.RuleViolations).To(Equal(want.RuleViolations), r.dir)
			Expect(got.Transcript).To(Equal(want.Transcript), r.dir)
			switch {
			case want.Drift != nil && want.Drift.Tool != "":
				seen["tool drift"]++
			case want.Drift != nil:
				seen["request drift"]++
			}
			if len(want.Differences) > 0 {
				seen["differences"]++
			}
			for _, d := range want.Differences {
				if strings.Contains(d.Note, "the replay created a session the recording does not have") {
					seen["extra session"]++
				}
			}
			if len(want.RuleViolations) > 0 {
				seen["category"]++
			}
			if want.Passed() {
				seen["passed"]++
			}
		}
		// The edits do what they are for: each kind of verdict is compared.
		Expect(seen).To(HaveKeyWithValue("passed", len(srcs)))
		Expect(seen).To(HaveKey("tool drift"))
		Expect(seen).To(HaveKey("extra session"))
		Expect(seen["request drift"]).To(BeNumerically(">=", len(srcs)))
		Expect(seen["differences"]).To(BeNumerically(">=", len(srcs)))
		Expect(seen["category"]).To(BeNumerically(">=", len(srcs)))
	})

	It("holds one recorded log per processor at once, not the recording, and reads none again of sessions that replay as recorded", func() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		src := writeWideScenario(GinkgoT().TempDir(), "spawn", 40)
		replay := func(edit bool) (*judge.Outcome, int) {
			GinkgoHelper()
			dir := filepath.Join(GinkgoT().TempDir(), "spawn", "wide")
			Expect(os.CopyFS(dir, os.DirFS(src))).To(Succeed())
			for i := 1; edit && i <= 40; i++ { // each child drifts: its log is read again
				editLog(dir, fixture.ChildLog(i), func(s string) string { return strings.Replace(s, `"systemDigest":"`, `"systemDigest":"0`, 1) })
			}
			fx, err := fixture.Open(dir)
			Expect(err).NotTo(HaveOccurred())
			held.RecordingLogs.Reset()
			o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference, Once: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(len(o.Replayed)).To(Equal(41))
			Expect(fx.Logs).To(BeNil())
			return o, held.RecordingLogs.Peak()
		}
		o, peak := replay(false)
		Expect(o.Passed()).To(BeTrue(), o.Report())
		Expect(peak).To(Equal(0), "recorded logs read again, of 41 that replay as recorded")
		o, peak = replay(true)
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Differences).To(HaveLen(39), o.Report())
		Expect(peak).To(And(BeNumerically(">=", 1), BeNumerically("<=", 2)), "recorded logs in memory at once, of 40 read again, on 2 processors")
	})
})

// breaking is the reference runtime, breaking the fixture's files once it
// ran: what the verdict then reads.
type breaking struct{ brk func() }

func (b *breaking) Name() string { return agent.ReferenceName }

func (b *breaking) Validate(sc *scenario.Scenario) ([]string, error) {
	return agentsnap.Validate(agent.Reference, sc)
}

func (b *breaking) Run(ctx context.Context, env *agentsnap.Env) error {
	err := agent.Reference.Run(ctx, env)
	b.brk()
	return err
}

var _ = Describe("the verdict of a fixture opened without its logs, whose files changed", func() {
	// A replay of scripts derived by a Deriver of the caller's keeps
	// nothing of the logs (judge.keepRead): its verdict reads every file
	// again, as reading the fixture whole would.
	rederive := func(l *session.Log) (*fakellm.Script, error) { return fakellm.DeriveLog(l, fakellm.DeriveOptions{}) }

	It("fails as reading the fixture whole fails, naming the first log in file order that does not read, when it reads every file again", func() {
		src := writeWideScenario(GinkgoT().TempDir(), "spawn", 12)
		for what, brk := range map[string]func(dir string){
			"a broken line before a broken header": func(dir string) {
				editLog(dir, fixture.ChildLog(4), func(s string) string { return s + "{broken\n" })
				editLog(dir, fixture.ChildLog(9), func(s string) string { return "{not a header\n" + s })
			},
			"a broken header": func(dir string) {
				editLog(dir, fixture.ChildLog(7), func(s string) string { return "{not a header\n" + s })
			},
		} {
			dir := filepath.Join(GinkgoT().TempDir(), "spawn", "wide")
			Expect(os.CopyFS(dir, os.DirFS(src))).To(Succeed())
			fx, err := fixture.Open(dir)
			Expect(err).NotTo(HaveOccurred())
			_, err = judge.Replay(context.Background(), fx, judge.Options{Runtime: &breaking{brk: func() { brk(dir) }}, Once: true, Deriver: rederive})
			_, loadErr := fixture.Load(dir)
			Expect(loadErr).To(MatchError(fixture.ErrFixture), what)
			Expect(err).To(MatchError(fmt.Sprintf("judge: %s: reading the recording for the verdict: %s", fx.Name, loadErr)), what)
		}
	})

	// Without a Deriver the replay keeps a digest of each log as its script
	// is derived: the verdict is of the recording served, and reads again
	// only the files of the sessions that differ from it.
	It("judges the recording it served: a file broken since is read again, and refused, only for a session that differs", func() {
		src := writeWideScenario(GinkgoT().TempDir(), "spawn", 12)
		broken := func(s string) string { return "{not a header\n" + s }
		dir := filepath.Join(GinkgoT().TempDir(), "spawn", "wide")
		Expect(os.CopyFS(dir, os.DirFS(src))).To(Succeed())
		editLog(dir, fixture.ChildLog(4), func(s string) string { return strings.Replace(s, `"systemDigest":"`, `"systemDigest":"0`, 1) }) // a drift
		fx, err := fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		_, err = judge.Replay(context.Background(), fx, judge.Options{Runtime: &breaking{brk: func() {
			editLog(dir, fixture.ChildLog(2), broken) // replays as served: not read again
			editLog(dir, fixture.ChildLog(4), broken)
		}}, Once: true})
		path := filepath.Join(dir, fixture.ChildLog(4))
		Expect(err).To(MatchError(And(
			HavePrefix(fmt.Sprintf("judge: %s: reading the recording for the verdict: %s changed since the replay began (", fx.Name, path)),
			HaveSuffix("): the replay was served from the recording as it was read then, and is judged against it, so this session's verdict would compare it with another; run the replay again"))))

		By("every session replaying as served, the files broken since are not read")
		dir = filepath.Join(GinkgoT().TempDir(), "spawn", "wide")
		Expect(os.CopyFS(dir, os.DirFS(src))).To(Succeed())
		fx, err = fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: &breaking{brk: func() {
			editLog(dir, fixture.ChildLog(4), broken)
			editLog(dir, fixture.ChildLog(7), broken)
		}}, Once: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeTrue(), o.Report())
	})
})
