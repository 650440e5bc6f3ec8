package wire_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Handler.Tool under Infer lineage", func() {
	ctx := context.Background()
	run := func(text string) func(context.Context) session.ToolOutput {
		return func(context.Context) session.ToolOutput { return session.ToolOutput{Text: text} }
	}

	It("finds the one session whose answer made two alike calls, and runs them in turn", func() {
		alike := []session.Part{toolCall("call_1", "lookup", `{"key":"release"}`), toolCall("call_2", "lookup", `{"key":"release"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {alike}}), func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		var ids []string
		for _, text := range []string{"first", "second"} {
			made, err := h.ToolCall(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`})
			Expect(err).NotTo(HaveOccurred(), "one session waits for both calls: no other to tell it from")
			ids = append(ids, made.ID)
			out, err := h.Tool(ctx, nil, session.Part{ID: made.ID, Name: "lookup"}, run(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Text).To(Equal(text))
		}
		Expect(ids).To(Equal([]string{"call_1", "call_2"}))
	})

	It("finds a call whose name only its first delta gave (a stream without block-ends)", func() {
		drv := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values([]llm.Chunk{
				{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall},
				{Type: session.ChunkToolCallDelta, Index: 0, ID: "call_1", Name: "lookup", ArgumentsDelta: `{"key":`},
				{Type: session.ChunkToolCallDelta, Index: 0, ArgumentsDelta: `"release"}`},
				{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishToolCalls}},
			}), nil
		})
		h, _, url := serveWire(drv, func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		out, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`}, run("found"))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("found"))
	})

	It("names the open calls beside the arguments given when a framework hands its tool another form (langchaingo's __arg1 string)", func() {
		h, _, url := serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "clock", `{"__arg1":"UTC"}`)}}}), func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		ran := false
		_, err := h.Tool(ctx, nil, session.Part{Name: "clock", Arguments: "UTC"}, func(context.Context) session.ToolOutput {
			ran = true
			return session.ToolOutput{}
		})
		Expect(err).To(MatchError(ContainSubstring(`wire: tool clock with arguments UTC: no session waits for the result of such a call (open calls of clock: session root's call call_1 {"__arg1":"UTC"}); call Tool for a tool call of the model's last answer, before the request that sends its result, with its arguments as the model made them`)))
		Expect(err).To(MatchError(ContainSubstring("langchaingo's OpenAIFunctionsAgent gives it the __arg1 string alone")))
		Expect(ran).To(BeFalse())
		_, err = h.Tool(ctx, nil, session.Part{Name: "weather", Arguments: `{}`}, run("x"))
		Expect(err).To(MatchError(ContainSubstring(`(no session waits for a result of weather)`)))
		out, err := h.Tool(ctx, nil, session.Part{Name: "clock", Arguments: `{"__arg1":"UTC"}`}, run("12:00"))
		Expect(err).NotTo(HaveOccurred(), "the arguments as the model made them find the call")
		Expect(out.Text).To(Equal("12:00"))
	})

	It("finds a child's call alike to one its parent's answer made and already ran (langchaingo runs an answer's tools in turn)", func() {
		root := []session.Part{toolCall("call_1", "clock", `{"__arg1":"UTC"}`), toolCall("call_2", "ask_researcher", `{"__arg1":"What time is it now?"}`)}
		h, store, url := serveWire(script(map[string][]any{"root": {root}, "root/call_2": {[]session.Part{toolCall("call_3", "clock", `{"__arg1":"UTC"}`)}}}),
			func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("Time check.")), nil)
		_, err := h.Tool(ctx, nil, session.Part{Name: "clock", Arguments: `{"__arg1":"UTC"}`}, run("12:00 for the root"))
		Expect(err).NotTo(HaveOccurred())
		ok(url, chat(user("What time is it now?")), nil) // the researcher, told by its question
		out, err := h.Tool(ctx, nil, session.Part{Name: "clock", Arguments: `{"__arg1":"UTC"}`}, run("12:01 for the child"))
		Expect(err).NotTo(HaveOccurred(), "the root's alike call ran already: only the child waits for this one")
		Expect(out.Text).To(Equal("12:01 for the child"))
		_, err = h.Tool(ctx, nil, session.Part{Name: "clock", Arguments: `{"__arg1":"UTC"}`}, run("x"))
		Expect(err).To(MatchError(ContainSubstring("sessions root and root/call_2 both wait for the result of such a call")), "both ran: nothing tells them apart")
		ok(url, chat(user("What time is it now?"), asked([3]string{"call_3", "clock", `{"__arg1":"UTC"}`}), result("call_3", "12:01 for the child")), nil)
		ok(url, chat(user("Time check."), asked([3]string{"call_1", "clock", `{"__arg1":"UTC"}`}, [3]string{"call_2", "ask_researcher", `{"__arg1":"What time is it now?"}`}),
			result("call_1", "12:00 for the root"), result("call_2", "done")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		Expect(storedToolRecords(ctx, store)).To(ConsistOf(`root call_1 clock {"__arg1":"UTC"}: 12:00 for the root, then tool/result`, `root/call_2 call_3 clock {"__arg1":"UTC"}: 12:01 for the child, then tool/result`))
	})

	It("finds a child's call by an id its parent's answer gave too, while the parent's call with that id still runs", func() {
		// Ids an API numbers per answer (call_0, call_1) repeat across
		// sessions: the parent's clock runs while the researcher it runs
		// beside makes its own call_1.
		root := []session.Part{toolCall("call_1", "clock", `{"zone":"UTC"}`), toolCall("call_2", "ask_researcher", `{"q":"What time is it now?"}`)}
		h, store, url := serveWire(script(map[string][]any{"root": {root}, "root/call_2": {[]session.Part{toolCall("call_1", "clock", `{"zone":"CET"}`)}}}),
			func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("Time check.")), nil)
		var child session.ToolOutput
		var childErr error
		out, err := h.Tool(ctx, nil, session.Part{ID: "call_1", Name: "clock", Arguments: `{"zone":"UTC"}`}, func(ctx context.Context) session.ToolOutput {
			ok(url, chat(user("What time is it now?")), nil) // the researcher, told by its question
			child, childErr = h.Tool(ctx, nil, session.Part{ID: "call_1", Name: "clock", Arguments: `{"zone":"CET"}`}, run("13:00 for the child"))
			return session.ToolOutput{Text: "12:00 for the root"}
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("12:00 for the root"))
		Expect(childErr).NotTo(HaveOccurred(), "the root's call_1 runs already, its output on the way: only the child waits for a call_1")
		Expect(child.Text).To(Equal("13:00 for the child"))
		ok(url, chat(user("What time is it now?"), asked([3]string{"call_1", "clock", `{"zone":"CET"}`}), result("call_1", "13:00 for the child")), nil)
		ok(url, chat(user("Time check."), asked([3]string{"call_1", "clock", `{"zone":"UTC"}`}, [3]string{"call_2", "ask_researcher", `{"q":"What time is it now?"}`}),
			result("call_1", "12:00 for the root"), result("call_2", "done")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		Expect(storedToolRecords(ctx, store)).To(ConsistOf(`root call_1 clock {"zone":"UTC"}: 12:00 for the root, then tool/result`, `root/call_2 call_1 clock {"zone":"CET"}: 13:00 for the child, then tool/result`))
	})

	It("waits for no call of an answer once its results came back, though the answer gave two calls one id", func() {
		same := []session.Part{toolCall("call_1", "lookup", `{"key":"a"}`), toolCall("call_1", "lookup", `{"key":"b"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {same, "both"}}), func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		ok(url, chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"a"}`}, [3]string{"call_1", "lookup", `{"key":"b"}`}),
			result("call_1", "A"), result("call_1", "B")), nil)
		for _, args := range []string{`{"key":"a"}`, `{"key":"b"}`} {
			_, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: args}, run("x"))
			Expect(err).To(MatchError(ContainSubstring("no session waits for the result of such a call")), args)
		}
	})
})

// blockedTool runs h.Tool for call id on a goroutine whose tool blocks
// until release is closed, once the tool has started; done gets its error.
func blockedTool(ctx context.Context, h *wire.Handler, id, text string, release <-chan struct{}) <-chan error {
	GinkgoHelper()
	started, done := make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := h.Tool(ctx, nil, session.Part{ID: id, Name: "lookup"}, func(context.Context) session.ToolOutput {
			close(started)
			<-release
			return session.ToolOutput{Text: text}
		})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		Fail("the tool did not run: " + fmt.Sprint(err))
	}
	return done
}

var _ = Describe("a session's request while one of its recorded tools still runs", func() {
	call1 := asked([3]string{"call_1", "lookup", `{"key":"release"}`})
	one := func() llm.Driver {
		return script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}}})
	}

	It("is refused, naming the session, the call and what to do; sent again once the tool returned, its record is right before its result", func(ctx SpecContext) {
		h, store, url := serveWire(one())
		ok(url, chat(user("hi")), nil)
		release := make(chan struct{})
		done := blockedTool(ctx, h, "call_1", "found", release)
		code, answer := post(url, chat(user("hi"), call1, result("call_1", "timed out")), nil)
		Expect(code).To(Equal(http.StatusBadRequest))
		const refused = "wire: session root: a request came while its recorded tool lookup (call call_1) still runs (wire.Handler.Tool, Env.Tool has not returned); an agent sends the request with a tool's result once the tool has returned: wait for every tool of the answer, and make a tool that times out return when its context is done"
		Expect(answer).To(ContainSubstring(refused))
		close(release)
		Expect(<-done).To(Succeed())
		ok(url, chat(user("hi"), call1, result("call_1", "found")), nil)
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring(refused)), "the refusal is the run's problem too")
		logs, err := persistence.LoadAll(ctx, store)
		Expect(err).NotTo(HaveOccurred())
		Expect(toolRecords(logs[0].Events)).To(Equal([]string{`call_1 lookup {"key":"release"}: found, then tool/result`}))
		var d session.ToolRecordedData
		for _, e := range logs[0].Events {
			if e.Type == session.TypeToolRecorded {
				Expect(e.Decode(&d)).To(Succeed())
			}
		}
		Expect([]int{d.Turn, d.Step}).To(Equal([]int{1, 1}), "the step whose answer made the call")
	}, SpecTimeout(20*time.Second))

	It("leaves the session's other tools running at once, and its requests refused until the last returns", func(ctx SpecContext) {
		both := []session.Part{toolCall("call_1", "lookup", `{"key":"a"}`), toolCall("call_2", "lookup", `{"key":"b"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {both, "done"}}))
		ok(url, chat(user("hi")), nil)
		release1, release2 := make(chan struct{}), make(chan struct{})
		done1 := blockedTool(ctx, h, "call_1", "A", release1)
		done2 := blockedTool(ctx, h, "call_2", "B", release2) // started while call_1 runs
		next := chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"a"}`}, [3]string{"call_2", "lookup", `{"key":"b"}`}), result("call_1", "A"), result("call_2", "B"))
		close(release1)
		Expect(<-done1).To(Succeed())
		code, answer := post(url, next, nil)
		Expect(code).To(Equal(http.StatusBadRequest))
		Expect(answer).To(ContainSubstring("its recorded tool lookup (call call_2) still runs"))
		close(release2)
		Expect(<-done2).To(Succeed())
		ok(url, next, nil)
	}, SpecTimeout(20*time.Second))

	It("at Close is the run's problem, naming the call; the handler neither waits for it nor writes under it", func(ctx SpecContext) {
		h, _, url := serveWire(one())
		ok(url, chat(user("hi")), nil)
		release := make(chan struct{})
		done := blockedTool(ctx, h, "call_1", "found", release)
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring("wire: session root: the handler closed while its recorded tool lookup (call call_1) still runs (wire.Handler.Tool, Env.Tool has not returned); the log keeps what was stored before; let the agent return once its tools have")))
		close(release)
		Expect(<-done).To(Succeed())
	}, SpecTimeout(20*time.Second))
})

var _ = Describe("Handler.ToolCall on two alike calls run at once", func() {
	It("gives each its own call; a third ask without an id, a retry as like as not, is told to send the call's id, which runs it again", func() {
		ctx := context.Background()
		alike := []session.Part{toolCall("call_1", "lookup", `{"key":"release"}`), toolCall("call_2", "lookup", `{"key":"release"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {alike}}))
		ok(url, chat(user("hi")), nil)
		ask := session.Part{Name: "lookup", Arguments: `{"key":"release"}`}
		var ids []string
		for range 2 {
			made, err := h.ToolCall(ctx, nil, ask)
			Expect(err).NotTo(HaveOccurred())
			ids = append(ids, made.ID)
		}
		Expect(ids).To(Equal([]string{"call_1", "call_2"}))
		_, err := h.ToolCall(ctx, nil, ask)
		Expect(err).To(MatchError(ContainSubstring(`(its calls: lookup call_1 {"key":"release"}, lookup call_2 {"key":"release"}); the output of call_1, call_2, named to run, never came: a retry of a call sends its id;`)))
		made, err := h.ToolCall(ctx, nil, session.Part{ID: "call_2", Name: "lookup", Arguments: ask.Arguments})
		Expect(err).NotTo(HaveOccurred())
		Expect(made.ID).To(Equal("call_2"))
		ran := false
		_, err = h.Tool(ctx, nil, session.Part{ID: "call_2", Name: "lookup"}, func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "B"} })
		Expect(err).NotTo(HaveOccurred())
		_, err = h.Tool(ctx, nil, session.Part{ID: "call_2", Name: "lookup"}, func(context.Context) session.ToolOutput {
			ran = true
			return session.ToolOutput{}
		})
		Expect(err).To(MatchError(ContainSubstring("session root's call call_2 has its output recorded already")))
		Expect(ran).To(BeFalse(), "refused before the tool runs again")
	})
})

var _ = Describe("Handler.Tool given the id of a call with other arguments", func() {
	It("says to send the arguments as the model made them, which the agent's framework or code may have changed", func() {
		h, _, url := serveWire(lookupDriver)
		ok(url, chat(user("hi")), nil)
		_, err := h.ToolCall(context.Background(), nil, session.Part{ID: "call_1", Name: "lookup", Arguments: `{"key":"release","limit":10}`})
		Expect(err).To(MatchError(`wire: tool lookup (call call_1) with arguments {"key":"release","limit":10}: session root's call call_1 is lookup with arguments {"key":"release"}; ` +
			`give each tool the id of its own call, and its arguments as the model made them (a framework that parses them — schema defaults, transforms — or the agent's own code may have changed them)`))
	})
})

// storedToolRecords is toolRecords of every log in store, each led by its
// session's id.
func storedToolRecords(ctx context.Context, store persistence.Store) []string {
	GinkgoHelper()
	logs, err := persistence.LoadAll(ctx, store)
	Expect(err).NotTo(HaveOccurred())
	var recorded []string
	for _, l := range logs {
		for _, r := range toolRecords(l.Events) {
			recorded = append(recorded, l.Header.ID+" "+r)
		}
	}
	return recorded
}

var _ = Describe("Handler.ToolOutput sent again for a call whose output is recorded", func() {
	call1 := asked([3]string{"call_1", "lookup", `{"key":"release"}`})
	lookup := session.Part{ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`}

	It("returns the same output again and records it once (a client retrying after its connection dropped); another output is refused, naming the session, the call and what to do", func(ctx SpecContext) {
		h, store, url := serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "done"}}))
		ok(url, chat(user("hi")), nil)
		for range 2 {
			out, err := h.ToolOutput(ctx, nil, lookup, session.ToolOutput{Text: "v2.4.1"})
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal(session.ToolOutput{Text: "v2.4.1"}))
		}
		_, err := h.ToolOutput(ctx, nil, lookup, session.ToolOutput{Text: "v2.4.2"})
		Expect(err).To(MatchError(`wire: tool lookup (call call_1): session root's call call_1 has its output recorded already, "v2.4.1", and this sends another, "v2.4.2"; a call has one output: send it once (a retry sends the same output again), and to record another, record the scenario again`))
		ok(url, chat(user("hi"), call1, result("call_1", "v2.4.1")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		Expect(storedToolRecords(ctx, store)).To(Equal([]string{`root call_1 lookup {"key":"release"}: v2.4.1, then tool/result`}))
	})
})

// recordedOutputs is a replay's ToolReplay of one answer per call id.
type recordedOutputs map[string]string

func (r recordedOutputs) ReplayTool(_ context.Context, _ llm.SessionRef, call session.ToolRecordedData) (session.ToolOutput, error) {
	return session.ToolOutput{Text: r[call.CallID]}, nil
}

func (recordedOutputs) ReplayMCP(context.Context, llm.SessionRef, session.MCPCallData) (session.MCPCallData, error) {
	return session.MCPCallData{}, errors.New("no MCP in this replay")
}

var _ = Describe("Handler.Tool in a replay, asked again with the id of a call the recording answered", func() {
	lookup := session.Part{ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`}
	never := func(context.Context) session.ToolOutput {
		defer GinkgoRecover()
		Fail("a replay ran the tool")
		return session.ToolOutput{}
	}
	replay := func() (*wire.Handler, persistence.Store, string) {
		return serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "done"}}),
			func(c *wire.Config) { c.ToolReplay = recordedOutputs{"call_1": "v2.4.1"} })
	}

	It("over HTTP (a client retrying after its connection dropped), answers the recorded output again and records it once", func(ctx SpecContext) {
		h, store, url := replay()
		ok(url, chat(user("hi")), nil)
		for range 2 {
			out, err := h.Tool(ctx, http.Header{}, lookup, never)
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal(session.ToolOutput{Text: "v2.4.1"}))
		}
		ok(url, chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"release"}`}), result("call_1", "v2.4.1")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		Expect(storedToolRecords(ctx, store)).To(Equal([]string{`root call_1 lookup {"key":"release"}: v2.4.1, then tool/result`}))
	})

	It("in process, where nothing retries, refuses it as the agent running the call again", func(ctx SpecContext) {
		h, _, url := replay()
		ok(url, chat(user("hi")), nil)
		_, err := h.Tool(ctx, nil, lookup, never)
		Expect(err).NotTo(HaveOccurred())
		_, err = h.Tool(ctx, nil, lookup, never)
		Expect(err).To(MatchError("wire: tool lookup (call call_1): session root's call call_1 has its output recorded already (or being recorded); a call runs once: send each call's output once, and give a call of the next answer its own id"))
	})
})
