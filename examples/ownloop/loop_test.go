package ownloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// turnEnds returns how each turn of the log ended, "kind: message".
func turnEnds(l *session.Log) []string {
	var out []string
	for _, e := range l.Events {
		var d session.TurnEndData
		if e.Type == session.TypeTurnEnd {
			Expect(e.Decode(&d)).To(Succeed())
			out = append(out, d.Reason.Kind+": "+d.Reason.Message)
		}
	}
	return out
}

// steps counts the log's step/start events.
func steps(l *session.Log) int {
	n := 0
	for _, e := range l.Events {
		if e.Type == session.TypeStepStart {
			n++
		}
	}
	return n
}

func wordcountCall(id string) playbook.ToolCall {
	return playbook.ToolCall{ID: id, Name: ownloop.ToolWordcount, Arguments: json.RawMessage(`{"text": "one two"}`)}
}

// cancelAfterFirstAnswer cancels the run once the root's first answer has
// streamed whole: the user stops the run while its tools run.
type cancelAfterFirstAnswer struct {
	inner  llm.Driver
	cancel context.CancelFunc
}

func (d cancelAfterFirstAnswer) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	stream, err := d.inner.Stream(ctx, req)
	if err != nil || req.Step != 1 {
		return stream, err
	}
	return func(yield func(llm.Chunk) bool) {
		for c := range stream {
			if !yield(c) {
				break
			}
		}
		d.cancel()
	}, nil
}

var _ = Describe("a turn's steps", func() {
	It("end the turn as an error, saying so, when the model keeps calling tools", func() {
		var turns []*playbook.Turn
		for i := range 12 {
			turns = append(turns, &playbook.Turn{ToolCalls: []playbook.ToolCall{wordcountCall(fmt.Sprintf("call_wc%d", i))}})
		}
		turns = append(turns, &playbook.Turn{Text: "never asked"})
		logs, err := runPlaybookLogs(context.Background(), &playbook.Playbook{Sessions: map[string][]*playbook.Turn{"root": turns}}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(logs).To(HaveLen(1))
		Expect(steps(logs[0])).To(Equal(12))
		Expect(turnEnds(logs[0])).To(Equal([]string{"error: the model kept calling tools for 12 steps"}))
	})

	It("stop, the turn aborted, when the run is cancelled while the tools run", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		logs, err := runPlaybookLogs(ctx, &playbook.Playbook{Sessions: map[string][]*playbook.Turn{"root": {
			{ToolCalls: []playbook.ToolCall{wordcountCall("call_wc")}},
			{Text: "never asked"},
		}}}, func(d llm.Driver) llm.Driver { return cancelAfterFirstAnswer{d, cancel} })
		Expect(err).To(MatchError(context.Canceled))
		Expect(toolResults(logs)).To(Equal([]string{"root: 2 words"}), "the step's tools ran and their results are recorded")
		Expect(steps(logs[0])).To(Equal(1), "no model call after the cancel")
		Expect(turnEnds(logs[0])).To(Equal([]string{"aborted: cancelled between steps"}))
	})
})

var _ = Describe("a helper's answer", func() {
	It("is its last text, even when its last step says nothing", func() {
		results, err := runPlaybook(&playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_help", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "count"}`)}}},
				{Text: "done"},
			},
			"call_help": {
				{Text: "It has 2 words.", ToolCalls: []playbook.ToolCall{wordcountCall("call_wc")}},
				{Reasoning: "nothing to add"},
			},
		}}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(Equal([]string{"root: It has 2 words.", "root/call_help: 2 words"}))
	})
})

var _ = Describe("convert", func() {
	It("answers an unknown currency on either side, or a missing amount, with an error naming it", func() {
		conv := func(id, args string) playbook.ToolCall {
			return playbook.ToolCall{ID: id, Name: ownloop.ToolConvert, Arguments: json.RawMessage(args)}
		}
		results, err := runPlaybook(&playbook.Playbook{Sessions: map[string][]*playbook.Turn{"root": {
			{ToolCalls: []playbook.ToolCall{
				conv("call_to", `{"amount": 1, "from": "EUR", "to": "XYZ"}`),
				conv("call_from", `{"amount": 1, "from": "XYZ", "to": "EUR"}`),
				conv("call_amount", `{"from": "EUR", "to": "USD"}`),
			}},
			{Text: "done"},
		}}}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(Equal([]string{
			"root: convert: unknown currency in EUR -> XYZ; known: CHF, EUR, GBP, JPY, USD (error)",
			"root: convert: unknown currency in XYZ -> EUR; known: CHF, EUR, GBP, JPY, USD (error)",
			"root: convert: amount is missing (error)",
		}))
	})
})

var _ = Describe("a helper whose turn does not complete", func() {
	It("answers the delegation with an error saying how the helper's turn ended", func() {
		results, err := runPlaybook(&playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_help", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "count"}`)}}},
				{Text: "done"},
			},
			"call_help": {{Text: "Half an ans", Error: &playbook.Error{Code: "overloaded", Message: "try later"}}},
		}}, nil)
		Expect(err).NotTo(HaveOccurred(), "a failed model call is a recorded outcome")
		Expect(results).To(Equal([]string{"root: helper root/call_help ended error: overloaded: try later (error)"}))
	})
})

// systems records the system prompt of each model call.
type systems struct {
	inner llm.Driver
	seen  *[]string
}

func (d systems) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	*d.seen = append(*d.seen, req.System)
	return d.inner.Stream(ctx, req)
}

var _ = Describe("a tool call without arguments", func() {
	It("runs the tool with an empty object, so its error names what is missing", func() {
		// A model may send a call's arguments as an empty string.
		model := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("done")}}
			if req.Step == 1 {
				m.Content = []session.Part{{Type: session.PartToolCall, ID: "call_wc", Name: ownloop.ToolWordcount}}
			}
			return slices.Values(llm.StreamMessage(m, nil, "")), nil
		})
		results, err := runPlaybook(&playbook.Playbook{Sessions: map[string][]*playbook.Turn{"root": {{Text: "unused"}}}},
			func(llm.Driver) llm.Driver { return model })
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(Equal([]string{"root: wordcount: text is missing (error)"}))
	})
})

var _ = Describe("the system prompt of a session offered no tool", func() {
	It("is the persona alone, with no tool list", func() {
		var seen []string
		pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_help", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "answer"}`)}}},
				{Text: "done"},
			},
			"call_help": {{Text: "answered"}},
		}}
		Expect(pb.Validate()).To(Succeed())
		store := memory.New()
		DeferCleanup(store.Close)
		env := &agentsnap.Env{
			Scenario: &scenario.Scenario{
				Prompts: []string{"Go."},
				Agent:   json.RawMessage(`{"persona": "You are a test agent.", "tools": ["subagent_spawn"], "maxDepth": 1}`),
			},
			Driver: systems{playbook.NewDriver(pb, "playbook.json"), &seen}, Store: store, Provider: "playbook", Model: "playbook",
			Clock: func() time.Time { return agentsnap.Epoch },
			Logf:  GinkgoT().Logf,
		}
		Expect(ownloop.Runtime{}.Run(context.Background(), env)).To(Succeed())
		Expect(seen).To(HaveLen(3))
		Expect(seen[0]).To(HavePrefix("You are a test agent.\n\nYour tools:\n- subagent_spawn: "), "the root is offered the delegation")
		Expect(seen[1]).To(Equal("You are a test agent."), "the helper, at the depth limit, is offered nothing")
	})
})

var _ = Describe("a model call whose stream ends aborted, without a cancel", func() {
	It("ends the turn aborted, saying the call was", func() {
		model := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values([]llm.Chunk{session.Finish(session.FinishAborted)}), nil
		})
		logs, err := runPlaybookLogs(context.Background(), &playbook.Playbook{Sessions: map[string][]*playbook.Turn{"root": {{Text: "unused"}}}},
			func(llm.Driver) llm.Driver { return model })
		Expect(err).NotTo(HaveOccurred())
		Expect(turnEnds(logs[0])).To(Equal([]string{"aborted: the model call was aborted"}))
	})
})
