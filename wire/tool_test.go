package wire_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolRuntime is the SDK agent of the MCP specs (mcpPlaybook) with its
// lookup a recorded tool whose answer changes from call to call (a
// counter), run with wire.Env.Tool from the tool's own arguments, as a
// framework's tool gets them: no call id. counter nil is a replay's, which
// fails the spec when the tool runs. recorded false runs the tool plainly.
func toolRuntime(counter *atomic.Int64, recorded bool) agentsnap.Runtime {
	return wire.Runtime("tool-test-agent", func(ctx context.Context, env *wire.Env) error {
		a := newSDKAgent(env)
		a.Tools = []sdkagent.Tool{{
			Name: "lookup", Description: lookup.Description, Parameters: lookup.Parameters,
			Run: func(ctx context.Context, args string) (string, error) {
				run := func(context.Context) session.ToolOutput {
					defer GinkgoRecover()
					if counter == nil {
						Fail("the replay ran the tool")
					}
					return session.ToolOutput{Text: fmt.Sprintf("release #%d", counter.Add(1))}
				}
				if !recorded {
					return run(ctx).Text, nil
				}
				out, err := env.Tool(ctx, session.Part{Name: "lookup", Arguments: args}, run)
				if err != nil && out.Text == "" {
					return "", err
				}
				return out.Text, nil
			},
		}}
		return sendPrompts(ctx, env, a)
	})
}

// toolRecords returns a log's tool/recorded events as "call result", each
// with the type of the event after it.
func toolRecords(events []session.Event) []string {
	return described(events, session.TypeToolRecorded, func(i int, d *session.ToolRecordedData) string {
		next := ""
		if i+1 < len(events) {
			next = events[i+1].Type
		}
		return d.CallID + " " + d.Name + " " + d.Arguments + ": " + d.Result.Text + ", then " + next
	})
}

var _ = Describe("an agent's recorded tools (wire.Env.Tool)", func() {
	var (
		fx      *fixture.Fixture
		counter *atomic.Int64
	)
	BeforeEach(func() {
		dir := newFixture("fork/tool", mcpScenario, mcpPlaybook)
		counter = &atomic.Int64{}
		_, err := recordWith(dir, toolRuntime(counter, true))
		Expect(err).NotTo(HaveOccurred())
		fx, err = fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
	})

	It("are recorded in the log of the session whose answer made the call, right before its result; a fork child's after its inherited ones", func() {
		Expect(counter.Load()).To(Equal(int64(2)))
		root, child := fx.Logs[0], fx.Logs[1]
		Expect(toolRecords(root.Events)).To(Equal([]string{`call_a lookup {"key":"release"}: release #1, then tool/result`}))
		Expect(child.Header.Mode).To(Equal(session.ModeFork))
		Expect(toolRecords(child.Own())).To(Equal([]string{`call_b lookup {"key":"release"}: release #2, then tool/result`}))
		Expect(toolRecords(child.Seed())).To(HaveLen(1), "the seed holds the root's turn 1")
	})

	It("replay green without running the tool, each session from its own recording", func() {
		for range 5 {
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: toolRuntime(nil, true)})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		}
	})

	It("go red when a fork child's script keeps the records its seed inherited (the seed not sliced off)", func() {
		broken := unsliced(func(s, whole *fakellm.Script) { s.Tools = whole.Tools })
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: toolRuntime(nil, true), Deriver: broken})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Consumption).To(MatchError(ContainSubstring("session root/call_f (fork; session.1.jsonl): live session root/call_f never asked for the recorded result of tool lookup, call call_a")))
	})

	It("fail the replay, naming the session and the call, when the recording holds no output for it", func() {
		dir := newFixture("fork/plain-tool", mcpScenario, mcpPlaybook)
		_, err := recordWith(dir, toolRuntime(&atomic.Int64{}, false))
		Expect(err).NotTo(HaveOccurred())
		plain, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), plain, harness.Options{Runtime: toolRuntime(nil, true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Consumption).To(MatchError(fakellm.ErrUnrecordedTool))
		Expect(o.Consumption.Error()).To(ContainSubstring("session root (session.jsonl)"))
		Expect(o.Consumption.Error()).To(ContainSubstring("call_a"))
	})
})

var _ = Describe("Handler.Tool", func() {
	run := func(text string) func(context.Context) session.ToolOutput {
		return func(context.Context) session.ToolOutput { return session.ToolOutput{Text: text} }
	}
	records := func(store persistence.Store) []string {
		GinkgoHelper()
		logs, err := persistence.LoadAll(context.Background(), store)
		Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, l := range logs {
			out = append(out, toolRecords(l.Events)...)
		}
		return out
	}
	call1 := asked([3]string{"call_1", "lookup", `{"key":"release"}`})
	ctx := context.Background()

	It("finds a call without an id by its name and JSON arguments, the first of two alike not run yet", func() {
		alike := []session.Part{toolCall("call_1", "lookup", `{"key":"release"}`), toolCall("call_2", "lookup", `{"key":"release"}`)}
		twice := script(map[string][]any{"root": {alike, alike}}) // ids numbered per answer, as some models do
		h, store, url := serveWire(twice)
		ok(url, chat(user("hi")), nil)
		args := `{ "key": "release" }` // the same JSON, written otherwise
		for _, text := range []string{"first", "second"} {
			out, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: args}, run(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Text).To(Equal(text))
		}
		_, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: args}, run("third"))
		Expect(err).To(MatchError(ContainSubstring(`session root's last answer made no such call not run yet (its calls: lookup call_1 {"key":"release"}, lookup call_2 {"key":"release"})`)))
		both := asked([3]string{"call_1", "lookup", `{"key":"release"}`}, [3]string{"call_2", "lookup", `{"key":"release"}`})
		ok(url, chat(user("hi"), both, result("call_1", "first"), result("call_2", "second")), nil)
		out, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: args}, run("again"))
		Expect(err).NotTo(HaveOccurred(), "the next answer's calls, though their ids are the last one's")
		Expect(out.Text).To(Equal("again"))
		ok(url, chat(user("hi"), both, result("call_1", "first"), result("call_2", "second"), both, result("call_1", "again"), result("call_2", "not recorded")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		Expect(records(store)).To(Equal([]string{
			`call_1 lookup {"key":"release"}: first, then tool/result`,
			`call_2 lookup {"key":"release"}: second, then tool/result`,
			`call_1 lookup {"key":"release"}: again, then tool/result`,
		}), "recorded with the answer's own arguments, before each result")
	})

	It("runs the tools of one answer at once", func(ctx SpecContext) {
		alike := []session.Part{toolCall("call_1", "lookup", `{"key":"release"}`), toolCall("call_2", "lookup", `{"key":"release"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {alike}}))
		ok(url, chat(user("hi")), nil)
		// Each tool waits for the other to start: run one after the
		// other, they would wait for ever.
		started := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
		done := make(chan error, 2)
		for i, id := range []string{"call_1", "call_2"} {
			go func() {
				_, err := h.Tool(ctx, nil, session.Part{ID: id, Name: "lookup"}, func(ctx context.Context) session.ToolOutput {
					close(started[i])
					select {
					case <-started[1-i]:
					case <-ctx.Done():
					}
					return session.ToolOutput{Text: id}
				})
				done <- err
			}()
		}
		for range 2 {
			Expect(<-done).To(Succeed())
		}
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring("stopped in turn 1 before it sent the results of its tool calls")))
	}, SpecTimeout(20*time.Second))

	It("names a call without running it (ToolCall), which counts as run: Tool with its id records the output", func() {
		alike := []session.Part{toolCall("call_1", "lookup", `{"key":"release"}`), toolCall("call_2", "lookup", `{"key":"release"}`)}
		h, store, url := serveWire(script(map[string][]any{"root": {alike}}))
		ok(url, chat(user("hi")), nil)
		var ids []string
		for range 2 {
			made, err := h.ToolCall(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`})
			Expect(err).NotTo(HaveOccurred())
			ids = append(ids, made.ID)
		}
		Expect(ids).To(Equal([]string{"call_1", "call_2"}))
		_, err := h.ToolCall(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`})
		Expect(err).To(MatchError(ContainSubstring("made no such call")))
		_, err = h.Tool(ctx, nil, session.Part{ID: "call_2", Name: "lookup"}, run("second"))
		Expect(err).NotTo(HaveOccurred())
		next := chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"release"}`}, [3]string{"call_2", "lookup", `{"key":"release"}`}), result("call_1", "first"), result("call_2", "second"))
		code, answer := post(url, next, nil)
		Expect(code).To(Equal(http.StatusBadRequest), "call_1's output never came")
		Expect(answer).To(ContainSubstring("a request came before the output of its recorded tool lookup (call call_1) was recorded"))
		_, err = h.Tool(ctx, nil, session.Part{ID: "call_1", Name: "lookup"}, run("first"))
		Expect(err).NotTo(HaveOccurred())
		ok(url, next, nil)
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring("a request came before the output")), "the refused request is the run's problem")
		Expect(records(store)).To(Equal([]string{
			`call_1 lookup {"key":"release"}: first, then tool/result`,
			`call_2 lookup {"key":"release"}: second, then tool/result`,
		}))
	})

	It("refuses a call the session's last answer did not make, naming its calls and what to do, without running it", func() {
		h, _, url := serveWire(lookupDriver)
		_, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: `{}`}, run("x"))
		Expect(err).To(MatchError(ContainSubstring("session root's last answer made no such call not run yet (its calls: none: it waits for no tool result)")))
		ok(url, chat(user("hi")), nil)
		ran := false
		_, err = h.Tool(ctx, nil, session.Part{ID: "call_9", Name: "lookup", Arguments: `{"key":"release"}`}, func(context.Context) session.ToolOutput {
			ran = true
			return session.ToolOutput{}
		})
		Expect(err).To(MatchError(ContainSubstring(`wire: tool lookup (call call_9) with arguments {"key":"release"}: session root's last answer made no such call not run yet (its calls: lookup call_1 {"key":"release"}); ask for a call of the session's last answer, once, before the request that sends its result, and name its session: in process, the context the session's calls are made with (wire.Spawn, wire.Fork); over HTTP, its Agentsnap-* headers`)))
		Expect(ran).To(BeFalse())
		for _, wrong := range []session.Part{{ID: "call_1", Name: "weather"}, {ID: "call_1", Name: "lookup", Arguments: `{"key":"other"}`}} {
			_, err = h.Tool(ctx, nil, wrong, run("x"))
			Expect(err).To(MatchError(ContainSubstring(`session root's call call_1 is lookup with arguments {"key":"release"}; give each tool the id of its own call`)), wrong.Name+" "+wrong.Arguments)
		}
		_, err = h.Tool(wire.Spawn(ctx, "call_7"), nil, session.Part{ID: "call_1", Name: "lookup"}, run("x"))
		Expect(err).To(MatchError(ContainSubstring("wire: tool lookup: wire: spawn child root/call_7 names call \"call_7\", which its parent root never made")))
	})

	It("under Infer lineage, finds the session from the call when the context names none", func() {
		h, store, url := serveWire(lookupDriver, func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		out, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`}, run("found"))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("found"))
		_, err = h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"other"}`}, run("x"))
		Expect(err).To(MatchError(ContainSubstring(`wire: tool lookup with arguments {"key":"other"}: no session waits for the result of such a call (open calls of lookup: session root's call call_1 {"key":"release"})`)))
		ok(url, chat(user("hi"), call1, result("call_1", "found")), nil)
		_, err = h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`}, run("x"))
		Expect(err).To(MatchError(ContainSubstring(`no session waits for the result of such a call`)), "its result came back")
		Expect(h.Close(ctx)).To(Succeed())
		Expect(records(store)).To(Equal([]string{`call_1 lookup {"key":"release"}: found, then tool/result`}))
	})
})
