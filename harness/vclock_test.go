package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A replay runs in virtual time: these specs give recorded hangs timeouts
// of an hour and more, and replay them under a real deadline of a minute,
// so a replay that waited for a timeout's real length would fail with the
// deadline's message, naming what it waited for.

// realDeadline bounds every replay of these specs.
const realDeadline = time.Minute

// replayWithin replays fx under realDeadline.
func replayWithin(ctx context.Context, fx *fixture.Fixture, opts harness.Options) *harness.Outcome {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, realDeadline)
	defer cancel()
	o, err := judge.Replay(ctx, fx, opts)
	Expect(err).NotTo(HaveOccurred(), "a replay in virtual time waits for no timeout's real length")
	return o
}

// checkAfter records, into a folder under dir, two helpers asked at once:
// one hangs until the turn's timeout, the other answers first and its
// runtime looks at its context before ending its turn. The turnTimeout is
// then raised to an hour: a replay in virtual time fires it at once, but
// only after the fast sibling stored its turn's end.
func checkAfter(dir string) string {
	GinkgoHelper()
	dir = writeRecorded(dir, "parallel/check-after", `{
  "prompts": ["Ask two helpers at once."],
  "turnTimeout": "200ms",
  "agent": {"checkAfter": true}
}`, `{"sessions": {
  "root": [{"toolCalls": [
    {"id": "call_slow", "name": "spawn", "arguments": {"task": "Take your time."}},
    {"id": "call_fast", "name": "spawn", "arguments": {"task": "Be quick."}}
  ]}],
  "call_slow": [{"text": "Thinking", "hang": true}],
  "call_fast": [{"text": "fast"}]
}}`, timeouts{})
	setMember(dir, "turnTimeout", "1h")
	return dir
}

// setMember rewrites a string member of dir's scenario.json; "" drops it
// (it is not the first member).
func setMember(dir, member, value string) {
	GinkgoHelper()
	path := filepath.Join(dir, "scenario.json")
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	re := regexp.MustCompile(`("` + member + `": *)"[^"]*"`)
	repl := `${1}"` + value + `"`
	if value == "" {
		re, repl = regexp.MustCompile(`,\s*"`+member+`": *"[^"]*"`), ""
	}
	Expect(re.Match(b)).To(BeTrue(), "scenario.json has %s", member)
	Expect(os.WriteFile(path, re.ReplaceAll(b, []byte(repl)), 0o644)).To(Succeed())
}

// writeRecorded writes a scenario and its playbook under root as name
// (CATEGORY/NAME), records it with rt (nil: the reference runtime) and
// returns its folder.
func writeRecorded(root, name, scenarioJSON, playbookJSON string, rt agentsnap.Runtime) string {
	GinkgoHelper()
	dir := filepath.Join(root, name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(scenarioJSON), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "playbook.json"), []byte(playbookJSON), 0o644)).To(Succeed())
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = agent.Reference
	if rt != nil {
		opts.Runtime = rt
	}
	opts.By = "vclock_test"
	_, err = recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// hangSibling records, with the reference runtime, a root that hands two
// tasks to spawned children at once: call_slow hangs until the turn's
// timeout, call_fast answers at once; the root's next turn answers OK.
// The recording waits the real 200ms; the fixture then says 1h.
func hangSibling(root string) string {
	GinkgoHelper()
	dir := writeRecorded(root, "parallel/hang-sibling", `{
  "description": "Two children at once: one hangs until the turn's timeout, its sibling answers first.",
  "prompts": ["Ask two helpers at once.", "Reply OK."],
  "agent": {"tools": ["subagent_spawn"]},
  "turnTimeout": "200ms"
}`, `{"sessions": {
  "root": [
    {"toolCalls": [
      {"id": "call_slow", "name": "subagent_spawn", "arguments": {"description": "Slow", "prompt": "Take your time."}},
      {"id": "call_fast", "name": "subagent_spawn", "arguments": {"description": "Fast", "prompt": "Be quick."}}
    ]},
    {"text": "OK"}
  ],
  "call_slow": [{"text": "Thinking", "hang": true}],
  "call_fast": [{"text": "fast"}]
}}`, nil)
	setMember(dir, "turnTimeout", "1h")
	return dir
}

var _ = Describe("virtual replay time", Label("vclock"), func() {
	It("replays errors/hang-timeout with a turnTimeout of an hour at once", func(ctx SpecContext) {
		dir := copyFixture("errors/hang-timeout")
		setMember(dir, "turnTimeout", "1h")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o := replayWithin(ctx, fx, harness.Options{Runtime: agent.Reference})
		Expect(o).To(harness.MatchRecording())
		Expect(judge.CompareGolden(o).Message).To(BeEmpty())
	})

	It("replays it without its override too: a call recorded as aborted waits for the cancel, as it did", func(ctx SpecContext) {
		dir := copyFixture("errors/hang-timeout")
		Expect(os.Remove(filepath.Join(dir, "replay.override.json"))).To(Succeed())
		setMember(dir, "turnTimeout", "1h")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Override).To(BeNil())
		o := replayWithin(ctx, fx, harness.Options{Runtime: agent.Reference})
		Expect(o).To(harness.MatchRecording())
		Expect(o.Transcript).To(ContainSubstring("ended aborted: cancelled between steps"))
	})

	It("refuses, for the reference runtime, a call recorded as aborted when scenario.json sets no turnTimeout", func(ctx SpecContext) {
		dir := copyFixture("errors/hang-timeout")
		Expect(os.Remove(filepath.Join(dir, "replay.override.json"))).To(Succeed())
		setMember(dir, "turnTimeout", "")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		_, err = judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference})
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err).To(MatchError(ContainSubstring("session.1.jsonl call 1 was recorded aborted")))
		Expect(err).To(MatchError(ContainSubstring(`set "turnTimeout" in ` + dir + "/scenario.json")))
	})

	DescribeTable("finishes a sibling first, as recorded, under 50 schedules",
		func(ctx SpecContext, procs int) {
			DeferCleanup(runtime.GOMAXPROCS, runtime.GOMAXPROCS(procs))
			fx, err := fixture.Load(hangSibling(GinkgoT().TempDir()))
			Expect(err).NotTo(HaveOccurred())
			ctx2, cancel := context.WithTimeout(ctx, realDeadline)
			defer cancel()
			res, err := judge.SearchSchedules(ctx2, fx, harness.Options{Runtime: agent.Reference}, 50)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Err()).NotTo(HaveOccurred())
			Expect(res.Passed()).To(BeTrue(), res.Report())
		},
		Entry("GOMAXPROCS 1", 1),
		Entry("GOMAXPROCS 8", 8),
	)

	Describe("a runtime with timeouts of its own", func() {
		It("fires them in the order they were due, with context.DeadlineExceeded, and lets a parent go on after its child's timeout", func(ctx SpecContext) {
			// Recorded: the child's own timeout (50ms) cuts its hang long
			// before the turn's (5s); the root then answers. Replayed with
			// 30m and 1h: the same order, at once.
			dir := writeRecorded(GinkgoT().TempDir(), "errors/child-timeout", `{
  "prompts": ["Ask a slow helper."],
  "turnTimeout": "5s",
  "agent": {"child": "50ms"}
}`, `{"sessions": {
  "root": [{"toolCalls": [{"id": "call_slow", "name": "spawn", "arguments": {"task": "Take your time."}}]}, {"text": "the helper timed out"}],
  "call_slow": [{"text": "Thinking", "hang": true}]
}}`, timeouts{})
			setMember(dir, "turnTimeout", "1h")
			setMember(dir, "child", "30m")
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			o := replayWithin(ctx, fx, harness.Options{Runtime: timeouts{}})
			Expect(o).To(harness.MatchRecording())
			Expect(o.Transcript).To(ContainSubstring("result call_slow: the turn ended: the call's context ended: context deadline exceeded"), "a context derived from the timeout's")
			Expect(o.Transcript).To(ContainSubstring("assistant: the helper timed out"))
		})

		It("holds that timeout as well when the fixture's logs are not in memory (fixture.Open, as serve replays it)", func(ctx SpecContext) {
			dir := checkAfter(GinkgoT().TempDir())
			fx, err := fixture.Open(dir)
			Expect(err).NotTo(HaveOccurred())
			o := replayWithin(ctx, fx, harness.Options{Runtime: timeouts{}, Once: true})
			Expect(o).To(harness.MatchRecording())
			Expect(o.Transcript).To(ContainSubstring("result call_fast: fast"))
		})

		It("holds a timeout until a sibling that finished first has stored its turn's end", func(ctx SpecContext) {
			dir := checkAfter(GinkgoT().TempDir())
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			o := replayWithin(ctx, fx, harness.Options{Runtime: timeouts{}})
			Expect(o).To(harness.MatchRecording())
			Expect(o.Transcript).To(ContainSubstring("result call_fast: fast"))
			ctx2, cancel := context.WithTimeout(ctx, realDeadline)
			defer cancel()
			res, err := judge.SearchSchedules(ctx2, fx, harness.Options{Runtime: timeouts{}}, 20)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Passed()).To(BeTrue(), res.Report())
		})
	})

	Describe("a replay that cannot go on", func() {
		It("fails at its deadline naming the call never made and the hang whose timeout it holds", func(ctx SpecContext) {
			dir := hangSibling(GinkgoT().TempDir())
			// call_fast's script gets a second call the agent never makes.
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			fast := scriptOf(fx, 2)
			ov := map[string]any{"session.2.jsonl": map[string]any{"replace": []any{fast, fast}}}
			b, err := json.Marshal(ov)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, "replay.override.json"), b, 0o644)).To(Succeed())
			fx, err = fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())

			short, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			_, err = judge.Replay(short, fx, harness.Options{Runtime: agent.Reference, Hints: inTest})
			Expect(err).To(MatchError(judge.ErrUnfinished))
			Expect(err).To(MatchError(context.DeadlineExceeded))
			msg := err.Error()
			GinkgoWriter.Println(msg)
			Expect(msg).To(HavePrefix("judge: parallel/hang-sibling: the replay did not finish (context deadline exceeded); it waits for:\n"))
			Expect(msg).To(ContainSubstring("\n  session root/call_slow (spawn; session.1.jsonl), call 1 (turn 1 step 1): a call recorded as aborted, waiting for its context to end; the timeout of 1h0m0s that ends it is pending, held until the calls recorded before it are answered\n"))
			Expect(msg).To(ContainSubstring("\n  session root/call_fast (spawn; session.2.jsonl): its recorded call 2 (an authored position) was never made\n"))
			Expect(msg).To(ContainSubstring("\n  pending timeout: 1h0m0s (due at 1h0m0s of replay time)\n"))
			Expect(msg).To(ContainSubstring("re-record with: "))
			Expect(msg).To(ContainSubstring("give it more time with the test's timeout"))
		})

		It("fails at its deadline naming a call that waits for a cancel no timeout brings", func(ctx SpecContext) {
			// Recorded with the turn's timeout; replayed without it, and
			// without a timeout of the runtime's own: nothing ends the
			// hang (a runtime of one's own may cancel a call itself, so
			// the fixture is not refused).
			dir := writeRecorded(GinkgoT().TempDir(), "errors/no-timer", `{
  "prompts": ["Ask a slow helper."],
  "turnTimeout": "100ms"
}`, `{"sessions": {
  "root": [{"toolCalls": [{"id": "call_slow", "name": "spawn", "arguments": {"task": "Take your time."}}]}],
  "call_slow": [{"text": "Thinking", "hang": true}]
}}`, timeouts{})
			setMember(dir, "turnTimeout", "")
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			short, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			_, err = judge.Replay(short, fx, harness.Options{Runtime: timeouts{}})
			Expect(err).To(MatchError(judge.ErrUnfinished))
			Expect(err.Error()).To(ContainSubstring("\n  session root/call_slow (spawn; session.1.jsonl), call 1 (turn 1 step 1): a call recorded as aborted, waiting for its context to end; no pending timeout ends it, so only a cancel of the runtime's own would\n"))
		})

		It("says so when its context ended before it began", func() {
			fx, err := fixture.Load("../fixtures/errors/hang-timeout")
			Expect(err).NotTo(HaveOccurred())
			done, cancel := context.WithCancel(context.Background())
			cancel()
			_, err = judge.Replay(done, fx, harness.Options{Runtime: agent.Reference})
			Expect(err).To(MatchError(judge.ErrUnfinished))
			Expect(err).To(MatchError(context.Canceled))
		})
	})
})

// scriptOf returns the first derived entry of fixture log n as the
// override's JSON shape, with no recorded position.
func scriptOf(fx *fixture.Fixture, n int) map[string]any {
	GinkgoHelper()
	var chunks []json.RawMessage
	for _, e := range fx.Logs[n].Own() {
		if e.Type == session.TypeAssistantChunk {
			d, err := session.DecodeChunkData(e.Data)
			Expect(err).NotTo(HaveOccurred())
			chunks = append(chunks, d.Chunk.AppendJSON(nil))
		}
	}
	return map[string]any{"kind": "chunks", "chunks": chunks}
}

// timeouts is a small runtime on package journal whose children may have
// a timeout of their own (agent.child, made with Env.Timeout) and which
// records in its logs which context ended and how: a timeout
// (context.DeadlineExceeded) or a cancel. With agent.checkAfter a session
// works a while after its last answer (it yields the processor a thousand
// times), then looks at its context and ends its turn aborted if the
// context ended meanwhile.
type timeouts struct{}

func (timeouts) Name() string { return "timeouts" }

type timeoutSettings struct {
	child      time.Duration
	checkAfter bool
}

func (rt timeouts) Run(ctx context.Context, env *agentsnap.Env) error {
	var raw struct {
		Child      string `json:"child"`
		CheckAfter bool   `json:"checkAfter"`
	}
	if len(env.Scenario.Agent) > 0 {
		if err := json.Unmarshal(env.Scenario.Agent, &raw); err != nil {
			return err
		}
	}
	set := timeoutSettings{checkAfter: raw.CheckAfter}
	if raw.Child != "" {
		d, err := time.ParseDuration(raw.Child)
		if err != nil {
			return err
		}
		set.child = d
	}
	root, err := journal.NewRoot(ctx, journal.Config{Store: env.Store, Clock: env.Clock, IDs: session.NewLineageIDs("root"), Cwd: env.Cwd, Preset: "timeouts"})
	if err != nil {
		return err
	}
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := rt.turn(ctx, env, set, root, journal.TriggerUser, prompt)
		return err
	})
}

// turn runs one turn of j; the text is its last answer, or how the turn
// was aborted.
func (rt timeouts) turn(ctx context.Context, env *agentsnap.Env, set timeoutSettings, j *journal.Journal, trigger, prompt string) (string, error) {
	j.StartTurn(trigger, journal.UserText(prompt))
	end := func(kind, msg string) error {
		return j.EndTurn(ctx, session.EndReason{Kind: kind, Message: msg})
	}
	aborted := func(msg string) (string, error) { return "the turn ended: " + msg, end(session.TurnAborted, msg) }
	var tools []llm.ToolSpec
	if j.Header().DelegationDepth == 0 {
		tools = []llm.ToolSpec{spawnSpec}
	}
	for {
		j.StartStep()
		req := &llm.Request{Model: env.Model, Tools: tools}
		call, err := j.BeginCall(ctx, env.Provider, req)
		if err != nil {
			return "", err
		}
		cctx, cancel := context.WithCancel(ctx) // derived: it must end as its parent did
		stream, err := env.Driver.Stream(cctx, req)
		if err != nil {
			cancel()
			return "", err
		}
		for c := range llm.Normalize(cctx, stream) {
			call.Chunk(c)
		}
		msg, finish := call.End()
		why := cctx.Err() // a derived context ends with its parent's error
		cancel()
		if finish.Kind == session.FinishAborted {
			return aborted("the call's context ended: " + cause(why))
		}
		calls := msg.ToolCalls()
		if len(calls) == 0 {
			if err := j.EndStep(ctx); err != nil {
				return "", err
			}
			if set.checkAfter {
				for range 1000 {
					runtime.Gosched() // work between the answer and the turn's end
				}
			}
			if set.checkAfter && ctx.Err() != nil {
				return aborted("the context ended after the answer: " + ctx.Err().Error())
			}
			return msg.Text(), end(session.TurnCompleted, "")
		}
		if err := rt.delegate(ctx, env, set, j, calls); err != nil {
			return "", err
		}
		if err := j.EndStep(ctx); err != nil {
			return "", err
		}
		if ctx.Err() != nil {
			return aborted("cancelled between steps: " + ctx.Err().Error())
		}
	}
}

func cause(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err.Error()
	}
	return "neither a timeout nor a cancel: " + err.Error()
}

// delegate runs one child per call at once, each under its own timeout
// when set, and records the results — each child's answer, or how its
// turn was aborted — in call order.
func (rt timeouts) delegate(ctx context.Context, env *agentsnap.Env, set timeoutSettings, j *journal.Journal, calls []session.Part) error {
	if err := j.ToolCalls(ctx, calls); err != nil {
		return err
	}
	results := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		child, err := j.Child(ctx, c.ID, session.ModeSpawn)
		if err != nil {
			return err
		}
		wg.Go(func() {
			cctx, stop := ctx, context.CancelFunc(func() {})
			if set.child > 0 {
				cctx, stop = env.Timeout(ctx, set.child)
			}
			defer stop()
			var args struct{ Task string }
			_ = json.Unmarshal([]byte(c.Arguments), &args)
			text, err := rt.turn(cctx, env, set, child, journal.TriggerSubagent, args.Task)
			if err != nil {
				text = "error: " + err.Error()
			}
			results[i] = text
		})
	}
	wg.Wait()
	for i, c := range calls {
		j.ToolResult(c.ID, c.Name, results[i], false)
	}
	return nil
}
