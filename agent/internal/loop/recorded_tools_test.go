package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A recorded tool whose answer changes from run to run: a counter. The
// root calls it in turn 1 and again, with the same call id (a server that
// numbers calls per answer), in turn 2; a fork child created in turn 2
// inherits turn 1 — the counter's first answer among it — and calls it
// once more with the same id and arguments. Only its own events hold the
// answer it got.
const tickScenario = `{
  "description": "A counter tool, recorded: the root ticks in turn 1 and 2, a fork child ticks in its own turn.",
  "prompts": ["Tick once.", "Tick again, then fork a child that ticks."]
}`

// tickAnswers are the model's answers per session, in order (a playbook
// refuses a call id used twice).
func tickAnswers() map[string][]llm.Message {
	tick := session.Part{Type: session.PartToolCall, ID: "call_t", Name: "tick", Arguments: `{"n":1}`}
	fork := session.Part{Type: session.PartToolCall, ID: "call_f", Name: loop.ForkToolName, Arguments: `{"description":"Tick","prompt":"Tick once."}`}
	say := func(parts ...session.Part) llm.Message {
		return llm.Message{Role: session.RoleAssistant, Content: parts}
	}
	return map[string][]llm.Message{
		"root":        {say(tick), say(session.TextPart("ticked")), say(tick), say(fork), say(session.TextPart("both ticked"))},
		"root/call_f": {say(tick), say(session.TextPart("the child ticked"))},
	}
}

// answerDriver serves each session's answers in order.
type answerDriver struct {
	mu      sync.Mutex
	answers map[string][]llm.Message
}

func (d *answerDriver) Stream(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.answers[req.Session.ID]
	if len(q) == 0 {
		return nil, fmt.Errorf("answerDriver: no answer left for session %s", req.Session.ID)
	}
	d.answers[req.Session.ID] = q[1:]
	return slices.Values(llm.StreamMessage(q[0], nil, "")), nil
}

// tickRuntime is the reference agent loop with a counter tool: each call
// returns the next value of counter. record says whether tick is a
// recorded tool; replay whether the runtime hands the Env's ToolReplay on.
func tickRuntime(counter *atomic.Int64, record, replay bool) agentsnap.Runtime {
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		tick := &loop.FuncTool{
			Name: "tick", Description: "Count one up and return the count.", Record: record,
			Parameters: `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			Fn: func(context.Context, json.RawMessage) (string, error) {
				return strconv.FormatInt(counter.Add(1), 10), nil
			},
		}
		cfg := loop.Config{
			Driver: env.Driver, Store: env.Store, Provider: env.Provider, Model: env.Model,
			Clock: env.Clock, Cwd: env.Cwd, IDs: loop.LineageIDs("root"),
			System: "You are a test loop.", Tools: loop.NewRegistry(tick, loop.ForkTool()),
		}
		if replay {
			cfg.ToolReplay = env.ToolReplay
		}
		rt, err := loop.New(cfg)
		if err != nil {
			return err
		}
		s, err := rt.NewSession(ctx)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := s.Turn(ctx, prompt)
			return err
		})
	})
}

// recordTicks records the counter scenario, the counter starting at 0,
// and loads the fixture; record says whether tick is a recorded tool.
func recordTicks(record bool) *fixture.Fixture {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "fork", "ticks")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(tickScenario), 0o644)).To(Succeed())
	var counter atomic.Int64
	_, err := recorder.Record(context.Background(), dir, recorder.Options{
		Runtime: tickRuntime(&counter, record, true), Driver: &answerDriver{answers: tickAnswers()},
		Provider: "scripted", Model: "m", By: "recorded_tools_test",
		Clock: func() time.Time { return agentsnap.Epoch },
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(counter.Load()).To(Equal(int64(3)), "the recording ran the tool three times")
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return fx
}

// recordedResults returns the texts of a log's tool/recorded events, in order.
func recordedResults(l *session.Log, own bool) []string {
	events := l.Events
	if own {
		events = l.Own()
	}
	var out []string
	for _, e := range events {
		if e.Type == session.TypeToolRecorded {
			var d session.ToolRecordedData
			Expect(e.Decode(&d)).To(Succeed())
			out = append(out, d.CallID+"="+d.Result.Text)
		}
	}
	return out
}

// toolsFromWholeLog is the seed-slice bug for recorded tools: model calls
// come from the session's own events, the tool results from its whole
// log, the inherited prefix included.
func toolsFromWholeLog(l *session.Log) (*fakellm.Script, error) {
	s, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
	if err != nil {
		return nil, err
	}
	whole, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
	if err != nil {
		return nil, err
	}
	s.Tools, s.MCP = whole.Tools, whole.MCP
	return s, nil
}

var _ = Describe("a recorded tool", func() {
	var fx *fixture.Fixture
	BeforeEach(func() { fx = recordTicks(true) })

	It("records each call's result in its session's log, a fork child's own after its inherited ones", func() {
		Expect(fx.Logs).To(HaveLen(2))
		root, child := fx.Logs[0], fx.Logs[1]
		Expect(recordedResults(root, true)).To(Equal([]string{"call_t=1", "call_t=2"}))
		Expect(child.Header.SeedLength).To(BeNumerically(">", 0))
		Expect(recordedResults(child, false)).To(Equal([]string{"call_t=1", "call_t=3"}), "the seed holds the root's first answer")
		Expect(recordedResults(child, true)).To(Equal([]string{"call_t=3"}))
		golden, err := os.ReadFile(fx.Golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(ContainSubstring("result call_t (recorded): 3"))
	})

	It("replays green from its recording, without running the tool, though the counter now answers otherwise", func() {
		var counter atomic.Int64
		counter.Store(100)
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: tickRuntime(&counter, true, true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(counter.Load()).To(Equal(int64(100)), "the replay never ran the tool")
	})

	It("runs for real and fails the replay when the tool is not recorded, showing the new answer", func() {
		var counter atomic.Int64
		counter.Store(100)
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: tickRuntime(&counter, false, true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).NotTo(harness.MatchRecording())
		Expect(counter.Load()).To(Equal(int64(103)))
		Expect(o.Report()).To(ContainSubstring("never asked for the recorded result of tool tick, call call_t"))
	})

	It("fails, naming the call, when the runtime does not hand the Env's ToolReplay on", func() {
		var counter atomic.Int64
		counter.Store(100)
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: tickRuntime(&counter, true, false)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Consumption).To(MatchError(fakellm.ErrNotConsumed))
		Expect(o.Consumption.Error()).To(ContainSubstring("session root (session.jsonl): live session root never asked for the recorded result of tool tick, call call_t (turn 1 step 1) — the runtime ran the tool itself (hand the Env's ToolReplay on to journal.Config.ToolReplay)"))
	})

	It("serves a fork child only its own recorded results: from the whole log, the child gets its parent's", func() {
		var counter atomic.Int64
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: tickRuntime(&counter, true, true), Deriver: toolsFromWholeLog})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Differences).To(HaveLen(1), o.Report())
		d := o.Differences[0]
		Expect(d.Session).To(Equal("session 1"))
		Expect(d.Type).To(Equal(session.TypeToolRecorded))
		Expect(d.Golden).To(Equal(`"3"`))
		Expect(d.Replay).To(Equal(`"1"`), "the root's inherited answer")
		Expect(o.Consumption).To(MatchError(fakellm.ErrNotConsumed), "the child's own record was never served")
	})

	It("is drift naming the call when the recorded call had other arguments", func() {
		root := filepath.Join(fx.Dir, fixture.RootLog)
		b, err := os.ReadFile(root)
		Expect(err).NotTo(HaveOccurred())
		edited := bytes.Replace(b, []byte(`"arguments":"{\"n\":1}","result":{"text":"2"}`), []byte(`"arguments":"{\"n\":7}","result":{"text":"2"}`), 1)
		Expect(edited).NotTo(Equal(b), "the root's second tick is in the log")
		Expect(os.WriteFile(root, edited, 0o644)).To(Succeed())
		fx, err = fixture.Load(fx.Dir)
		Expect(err).NotTo(HaveOccurred())

		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: tickRuntime(new(atomic.Int64), true, true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal(`root (root session), tool tick call call_t (turn 2 step 1): it was called with {"n":1}, recorded with {"n":7}`))
		Expect(o.Report()).To(ContainSubstring("tool drift: root (root session), tool tick call call_t"))
		Expect(o.Consumption).To(MatchError(fakellm.ErrToolDrift))
		Expect(o.Consumption.Error()).To(ContainSubstring(`session root (session.jsonl): call call_t (turn 2 step 1): tool tick was called with {"n":1}, the recording's tick with {"n":7}`))
	})

	It("errors naming the session, the call, the tool and the fix when it was never recorded", func() {
		unrecorded := recordTicks(false)
		o, err := judge.Replay(context.Background(), unrecorded, harness.Options{Runtime: tickRuntime(new(atomic.Int64), true, true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Consumption).To(MatchError(fakellm.ErrUnrecordedTool))
		Expect(o.Consumption.Error()).To(ContainSubstring("fakellm: unrecorded tool call: session root (session.jsonl): tool tick, call call_t (turn 1 step 1): the recording holds no result for it (recorded tool calls of this session: none) — it was recorded before tick was a recorded tool, or the agent calls it where the recording did not; re-record with: "))
		Expect(o.Consumption.Error()).To(ContainSubstring("session root/call_f (fork; session.1.jsonl): tool tick, call call_t"))
	})
})
