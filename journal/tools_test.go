package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// tape is a ToolReplay that answers from a table and notes each ask.
type tape struct {
	mu     sync.Mutex
	tools  map[string]session.ToolOutput // by call id
	asked  []string
	refuse error
}

func (t *tape) ReplayTool(_ context.Context, s llm.SessionRef, call session.ToolRecordedData) (session.ToolOutput, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asked = append(t.asked, fmt.Sprintf("%s %s %s %s turn %d step %d", s.ID, call.CallID, call.Name, call.Arguments, call.Turn, call.Step))
	if t.refuse != nil {
		return session.ToolOutput{}, t.refuse
	}
	return t.tools[call.CallID], nil
}

func (t *tape) ReplayMCP(context.Context, llm.SessionRef, session.MCPCallData) (session.MCPCallData, error) {
	return session.MCPCallData{}, errors.New("tape: no MCP")
}

// lookups starts a step whose answer calls the lookup tool once per id.
func lookups(j *journal.Journal, ids ...string) []session.Part {
	j.StartStep()
	m := llm.Message{Role: session.RoleAssistant}
	for _, id := range ids {
		m.Content = append(m.Content, session.Part{Type: session.PartToolCall, ID: id, Name: "lookup", Arguments: `{"key":"` + id + `"}`})
	}
	msg, _ := call(j, llm.StreamMessage(m, nil, ""))
	Expect(j.ToolCalls(ctx, msg.ToolCalls())).To(Succeed())
	return msg.ToolCalls()
}

func typesOf(events []session.Event) []string {
	var out []string
	for _, e := range events {
		if e.Type != session.TypeAssistantChunk && e.Type != session.TypeRequestHeader {
			out = append(out, e.Type)
		}
	}
	return out
}

func recordsOf(events []session.Event) []session.ToolRecordedData {
	var out []session.ToolRecordedData
	for _, e := range events {
		if e.Type == session.TypeToolRecorded {
			var d session.ToolRecordedData
			Expect(e.Decode(&d)).To(Succeed())
			out = append(out, d)
		}
	}
	return out
}

var _ = Describe("Journal.Tool", func() {
	It("runs the tool while recording and writes its output right before the call's tool/result, in call order whatever finished first", func() {
		j := newRoot(memory.New())
		j.StartTurn(journal.TriggerUser, journal.UserText("look two things up"))
		calls := lookups(j, "call_a", "call_b")
		// call_b finishes first; the log does not show it.
		release := make(chan struct{})
		outs := make([]session.ToolOutput, len(calls))
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Go(func() {
				defer GinkgoRecover()
				if c.ID == "call_a" {
					<-release
				}
				var err error
				outs[i], err = j.Tool(ctx, c, func(context.Context) session.ToolOutput {
					return session.ToolOutput{Text: "value of " + c.ID}
				})
				Expect(err).NotTo(HaveOccurred())
				if c.ID == "call_b" {
					close(release)
				}
			})
		}
		wg.Wait()
		for i, c := range calls {
			j.ToolResult(c.ID, c.Name, outs[i].Text, outs[i].IsError)
		}
		Expect(j.EndStep(ctx)).To(Succeed())
		events := logOf(j)
		Expect(typesOf(events)).To(Equal([]string{"turn/start", "user/message", "step/start", "assistant/message", "tool/call", "tool/call",
			"tool/recorded", "tool/result", "tool/recorded", "tool/result", "step/end"}))
		Expect(recordsOf(events)).To(Equal([]session.ToolRecordedData{
			{Turn: 1, Step: 1, CallID: "call_a", Name: "lookup", Arguments: `{"key":"call_a"}`, Result: session.ToolOutput{Text: "value of call_a"}},
			{Turn: 1, Step: 1, CallID: "call_b", Name: "lookup", Arguments: `{"key":"call_b"}`, Result: session.ToolOutput{Text: "value of call_b"}},
		}))
		Expect(journal.Conversation(events)).To(HaveLen(4), "a tool/recorded event is no message")
	})

	It("writes a record whose call gets no ToolResult at the step's end, nothing lost", func() {
		j := newRoot(memory.New())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
		calls := lookups(j, "call_a")
		_, err := j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "x"} })
		Expect(err).NotTo(HaveOccurred())
		Expect(j.EndStep(ctx)).To(Succeed())
		Expect(typesOf(logOf(j))[4:]).To(Equal([]string{"tool/call", "tool/recorded", "step/end"}))
	})

	It("serves the replay's result in a replay, without running the tool, asking with the session, call and arguments", func() {
		t := &tape{tools: map[string]session.ToolOutput{"call_a": {Text: "recorded", IsError: true}}}
		cfg := config(memory.New())
		cfg.ToolReplay = t
		j, err := journal.NewRoot(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
		calls := lookups(j, "call_a")
		out, err := j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput {
			Fail("the tool ran in a replay")
			return session.ToolOutput{}
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(session.ToolOutput{Text: "recorded", IsError: true}))
		Expect(t.asked).To(Equal([]string{`root call_a lookup {"key":"call_a"} turn 1 step 1`}))
		j.ToolResult(calls[0].ID, calls[0].Name, out.Text, out.IsError)
		Expect(recordsOf(logOf(j))).To(HaveLen(1))
	})

	It("returns the replay's refusal and records it as the call's error output", func() {
		refusal := errors.New("no such recorded call")
		cfg := config(memory.New())
		cfg.ToolReplay = &tape{refuse: refusal}
		j, err := journal.NewRoot(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
		calls := lookups(j, "call_a")
		out, err := j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "live"} })
		Expect(err).To(MatchError(refusal))
		Expect(out).To(Equal(session.ToolOutput{Text: "no such recorded call", IsError: true}))
		j.ToolResult(calls[0].ID, calls[0].Name, out.Text, out.IsError)
		Expect(recordsOf(logOf(j))[0].Result).To(Equal(out))
	})

	It("runs the tool and records its output when the replay answers llm.ErrRunTool (an only-changed recording's session recorded anew)", func() {
		cfg := config(memory.New())
		cfg.ToolReplay = &tape{refuse: fmt.Errorf("%w (the session went to the model)", llm.ErrRunTool)}
		j, err := journal.NewRoot(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
		calls := lookups(j, "call_a")
		out, err := j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "live"} })
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(session.ToolOutput{Text: "live"}))
		j.ToolResult(calls[0].ID, calls[0].Name, out.Text, out.IsError)
		Expect(recordsOf(logOf(j))[0].Result).To(Equal(out))
	})

	It("refuses a call without an id and a second call of one id before its result", func() {
		j := newRoot(memory.New())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
		calls := lookups(j, "call_a")
		run := func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "x"} }
		_, err := j.Tool(ctx, session.Part{Name: "lookup"}, run)
		Expect(err).To(MatchError(`journal: session root: Tool(lookup) has no call id; pass the tool call the model made (its ID names the recorded result)`))
		_, err = j.Tool(ctx, calls[0], run)
		Expect(err).NotTo(HaveOccurred())
		_, err = j.Tool(ctx, calls[0], run)
		Expect(err).To(MatchError(`journal: session root: Tool called twice for call call_a (lookup) before its ToolResult; call ids of one step are distinct`))
	})

	It("hands a fork child its parent's records in the seed, and the child's own after it", func() {
		j := newRoot(memory.New())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
		calls := lookups(j, "call_a")
		_, _ = j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "parent's"} })
		j.ToolResult(calls[0].ID, calls[0].Name, "parent's", false)
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		j.StartTurn(journal.TriggerUser, journal.UserText("fork"))
		j.StartStep()
		msg, _ := call(j, delegation("call_f"))
		Expect(j.ToolCalls(ctx, msg.ToolCalls())).To(Succeed())
		child, err := j.Child(ctx, "call_f", session.ModeFork)
		Expect(err).NotTo(HaveOccurred())
		child.StartTurn(journal.TriggerSubagent, journal.UserText("look it up"))
		own := lookups(child, "call_a")
		_, _ = child.Tool(ctx, own[0], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "child's"} })
		child.ToolResult(own[0].ID, own[0].Name, "child's", false)
		events := logOf(child)
		seed := child.Header().SeedLength
		Expect(recordsOf(events[:seed])).To(HaveLen(1))
		Expect(recordsOf(events[:seed])[0].Result.Text).To(Equal("parent's"))
		Expect(recordsOf(events[seed:])).To(HaveLen(1))
		Expect(recordsOf(events[seed:])[0]).To(Equal(session.ToolRecordedData{Turn: 2, Step: 1, CallID: "call_a", Name: "lookup", Arguments: `{"key":"call_a"}`, Result: session.ToolOutput{Text: "child's"}}))
	})
})

var _ = Describe("Journal.RecordMCP", func() {
	mcpCall := func(method, params string) session.MCPCallData {
		return session.MCPCallData{Server: "clock", Method: method, Params: json.RawMessage(params), Result: json.RawMessage(`{}`)}
	}

	It("writes the requests made while the step's tools ran before the first tool/result, in key order whatever finished first", func() {
		for _, order := range [][]string{{`{"b":1}`, `{"a":1}`}, {`{"a":1}`, `{"b":1}`}} {
			j := newRoot(memory.New())
			j.StartTurn(journal.TriggerUser, journal.UserText("ask the clock"))
			calls := lookups(j, "call_a")
			for _, p := range order { // from the tools' goroutines, one after the other
				done := make(chan struct{})
				go func() { j.RecordMCP(mcpCall("tools/call", p)); close(done) }()
				<-done
			}
			j.ToolResult(calls[0].ID, calls[0].Name, "x", false)
			Expect(j.EndStep(ctx)).To(Succeed())
			events := logOf(j)
			Expect(typesOf(events)[4:]).To(Equal([]string{"tool/call", "mcp/call", "mcp/call", "tool/result", "step/end"}))
			var got []string
			for _, e := range events {
				if e.Type == session.TypeMCPCall {
					var d session.MCPCallData
					Expect(e.Decode(&d)).To(Succeed())
					Expect([]int{d.Turn, d.Step}).To(Equal([]int{1, 1}))
					got = append(got, string(d.Params))
				}
			}
			Expect(got).To(Equal([]string{`{"a":1}`, `{"b":1}`}), "order %v", order)
		}
	})

	It("writes a request made before the turn's first step inside the turn, and one made after the turn at the next flush", func() {
		j := newRoot(memory.New())
		j.RecordMCP(mcpCall("tools/list", `{}`))
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		j.StartStep()
		call(j, answer("hello"))
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		j.RecordMCP(mcpCall("tools/call", `{"name":"late"}`))
		Expect(j.Flush(ctx)).To(Succeed())
		Expect(typesOf(logOf(j))).To(Equal([]string{"turn/start", "user/message", "mcp/call", "step/start", "assistant/message", "step/end", "turn/end", "mcp/call"}))
	})
})
