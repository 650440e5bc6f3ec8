package session_test

import (
	"fmt"

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

var _ = Describe("CheckSeedBoundary, the seedLength a fork child may carry", func() {
	// Two completed turns, then a third under way with a model call.
	log := func() []session.Event {
		evs := turnEvents(0, 1, "call_a")
		evs = append(evs, turnEvents(len(evs), 2)...)
		evs = append(evs, turnEvents(len(evs), 3)[:3]...) // turn/start, user/message, step/start
		evs = append(evs, session.Event{Type: session.TypeAssistantChunk, Seq: int64(len(evs)),
			Data: []byte(`{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"MARM"}}`)})
		return evs
	}

	It("accepts no seed, and the completed-turn prefix a fork backend stamps", func() {
		events := log()
		Expect(session.CheckSeedBoundary(events, 0)).To(Succeed())
		Expect(session.CheckSeedBoundary(nil, 0)).To(Succeed())
		n := session.CompletedPrefix(events)
		Expect(n).To(BeNumerically(">", 0))
		Expect(session.CheckSeedBoundary(events, n)).To(Succeed())
	})

	It("accepts exactly the lengths that end at a turn/end", func() {
		events := log()
		var ok []int
		for n := 1; n <= len(events); n++ {
			if session.CheckSeedBoundary(events, n) == nil {
				ok = append(ok, n)
			}
		}
		first := len(turnEvents(0, 1, "call_a"))
		Expect(ok).To(Equal([]int{first, first + len(turnEvents(0, 2))}))
	})

	It("refuses a seed that ends inside a model call, naming the seq, its type and the fix", func() {
		events := log()
		err := session.CheckSeedBoundary(events, len(events))
		Expect(err).To(MatchError(session.ErrSeedBoundary))
		last := events[len(events)-1]
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("seedLength %d ends the seed at seq %d (assistant/chunk), not at a turn/end", len(events), last.Seq)))
		Expect(err.Error()).To(ContainSubstring("does not fall between turns"))
		Expect(err.Error()).To(HaveSuffix("stamp seedLength at the end of the parent's last completed turn (session.CompletedPrefix)"))
		// What mends the log is the caller's to say: re-recording a fixture
		// (fakellm's derivation), not a recording made moments before.
		Expect(err.Error()).NotTo(ContainSubstring("re-record"))
	})

	It("says the same as CheckSeedEnd, its streaming form, at every length", func() {
		events := log()
		for n := 1; n <= len(events); n++ {
			want := session.CheckSeedBoundary(events, n)
			got := session.CheckSeedEnd(&events[n-1], n)
			if want == nil {
				Expect(got).To(Succeed(), "seedLength %d", n)
			} else {
				Expect(got).To(MatchError(want.Error()), "seedLength %d", n)
			}
		}
	})

	DescribeTable("refuses a seedLength outside the log as past the end",
		func(n int) {
			events := turnEvents(0, 1)
			Expect(session.CheckSeedBoundary(events, n)).To(MatchError(session.ErrSeedPastEnd))
		},
		Entry("one past", len(turnEvents(0, 1))+1),
		Entry("negative", -1),
	)
})
