package session_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("CompletedPrefix, the seed a fork child inherits", func() {
	// A parent log: turn 1 calls two tools and completes; turn 2 is under
	// way and has just asked for the fork.
	turn1 := turnEvents(0, 1, "call_a", "call_b")
	forkCall := session.Event{Type: session.TypeToolCall, Data: []byte(`{"turn":2,"step":1,"callId":"call_fork","name":"subagent_fork","arguments":"{}"}`)}

	midTurn2 := func() []session.Event {
		evs := append([]session.Event{}, turn1...)
		for _, e := range turnEvents(len(evs), 2)[:2] { // turn/start, user/message
			evs = append(evs, e)
		}
		evs = append(evs, session.Event{Type: session.TypeStepStart, Data: []byte(`{"turn":2,"step":1}`)}, forkCall)
		return evs
	}

	It("inherits only the completed turns when the fork happens mid-turn", func() {
		events := midTurn2()
		n := session.CompletedPrefix(events)
		Expect(n).To(Equal(len(turn1)))
		Expect(events[n-1].Type).To(Equal(session.TypeTurnEnd))
		Expect(events[n:]).To(ContainElement(forkCall), "the fork's own call stays out of the seed")
	})

	It("inherits nothing when the fork happens on the first turn", func() {
		firstTurn := turnEvents(0, 1)[:3]
		firstTurn = append(firstTurn, forkCall)
		Expect(session.CompletedPrefix(firstTurn)).To(Equal(0))
		Expect(session.CompletedPrefix(nil)).To(Equal(0))
	})

	It("carries the result of every tool call in the prefix", func() {
		events := midTurn2()
		prefix := events[:session.CompletedPrefix(events)]
		calls, results := map[string]bool{}, map[string]bool{}
		for _, e := range prefix {
			switch e.Type {
			case session.TypeToolCall:
				var d session.ToolCallData
				Expect(e.Decode(&d)).To(Succeed())
				calls[d.CallID] = true
			case session.TypeToolResult:
				var d session.ToolResultData
				Expect(e.Decode(&d)).To(Succeed())
				for _, p := range d.Message.Content {
					results[p.ToolCallID] = true
				}
			}
		}
		Expect(calls).To(Equal(map[string]bool{"call_a": true, "call_b": true}))
		Expect(results).To(Equal(calls))
	})

	It("is the whole log when the last event ends a turn", func() {
		events := append(append([]session.Event{}, turn1...), turnEvents(len(turn1), 2)...)
		Expect(session.CompletedPrefix(events)).To(Equal(len(events)))
	})

	It("ends at the last turn/end even when that turn ended in an error", func() {
		events := append([]session.Event{}, turn1...)
		events = append(events, turnEvents(len(events), 2)...)
		events[len(events)-1].Data = []byte(`{"turn":2,"reason":{"kind":"error","message":"boom"}}`)
		events = append(events, turnEvents(len(events), 3)[:2]...)
		Expect(session.CompletedPrefix(events)).To(Equal(len(events) - 2))
	})
})
