package persistence_test

import (
	"fmt"
	"slices"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// line is an event as its log line, for readable comparisons.
func line(e session.Event) string {
	b := session.AppendEvent(nil, &e)
	return string(b[:len(b)-1])
}

func lines(events []session.Event) []string {
	out := []string{}
	for _, e := range events {
		out = append(out, line(e))
	}
	return out
}

var _ = Describe("Closers", func() {
	const errResult = `{"type":"tool-result","toolCallId":"%s","name":"read","content":[{"type":"text","text":"interrupted: the session stopped before this tool call returned"}],"isError":true}`
	turnEnd := func(seq, time int64, turn int) string {
		return line(session.Event{Type: session.TypeTurnEnd, Seq: seq, Time: time, Data: []byte(
			`{"turn":` + strconv.Itoa(turn) + `,"reason":{"kind":"interrupted","message":"the session stopped before the turn ended"}}`)})
	}

	DescribeTable("closes exactly what an interrupted turn left open",
		func(events func() []session.Event, want func(last session.Event) []string) {
			evs := events()
			got := persistence.Closers(evs)
			if want == nil {
				Expect(got).To(BeNil())
				return
			}
			Expect(lines(got)).To(Equal(want(evs[len(evs)-1])))
		},
		Entry("no events", func() []session.Event { return nil }, nil),
		Entry("a completed turn", func() []session.Event { return storetest.CompletedTurn(0, 1, "p", "a") }, nil),
		Entry("a completed turn and events of other types after it", func() []session.Event {
			return slices.Concat(storetest.CompletedTurn(0, 1, "p", "a"), storetest.OddEvents(8))
		}, nil),
		Entry("a turn that only started", func() []session.Event {
			return []session.Event{storetest.Event(0, session.TypeTurnStart, session.TurnStartData{Turn: 3})}
		}, func(last session.Event) []string { return []string{turnEnd(1, last.Time, 3)} }),
		Entry("a step still streaming", func() []session.Event {
			return storetest.CompletedTurn(0, 2, "p", "a")[:4]
		}, func(last session.Event) []string {
			return []string{
				line(session.Event{Type: session.TypeStepEnd, Seq: 4, Time: last.Time, Data: []byte(`{"turn":2,"step":1}`)}),
				turnEnd(5, last.Time, 2),
			}
		}),
		Entry("tool calls, one answered", func() []session.Event {
			started, finished := storetest.ToolTurn(0, 1)
			return append(started, finished[0])
		}, func(last session.Event) []string {
			return []string{
				line(session.Event{Type: session.TypeToolResult, Seq: 7, Time: last.Time, Data: []byte(
					`{"turn":1,"step":1,"message":{"role":"tool","content":[` + fmt.Sprintf(errResult, "call_b") + `]}}`)}),
				line(session.Event{Type: session.TypeStepEnd, Seq: 8, Time: last.Time, Data: []byte(`{"turn":1,"step":1}`)}),
				turnEnd(9, last.Time, 1),
			}
		}),
		Entry("tool calls in the assistant message only, none logged as tool/call yet", func() []session.Event {
			started, _ := storetest.ToolTurn(0, 1)
			return started[:4]
		}, func(last session.Event) []string {
			return []string{
				line(session.Event{Type: session.TypeToolResult, Seq: 4, Time: last.Time, Data: []byte(
					`{"turn":1,"step":1,"message":{"role":"tool","content":[` + fmt.Sprintf(errResult, "call_a") + `]}}`)}),
				line(session.Event{Type: session.TypeToolResult, Seq: 5, Time: last.Time, Data: []byte(
					`{"turn":1,"step":1,"message":{"role":"tool","content":[` + fmt.Sprintf(errResult, "call_b") + `]}}`)}),
				line(session.Event{Type: session.TypeStepEnd, Seq: 6, Time: last.Time, Data: []byte(`{"turn":1,"step":1}`)}),
				turnEnd(7, last.Time, 1),
			}
		}),
		Entry("all calls answered by dsh-style results, the step ended", func() []session.Event {
			started, _ := storetest.ToolTurn(0, 1)
			b := slices.Clone(started)
			for i, id := range []string{"call_a", "call_b"} {
				b = append(b, session.Event{Type: session.TypeToolResult, Seq: int64(6 + i), Time: 9, Data: []byte(
					`{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"` + id + `"},"content":[{"type":"tool-result","toolCallId":"` + id + `","content":[],"isError":false}],"role":"user"}}`)})
			}
			return append(b, session.Event{Type: session.TypeStepEnd, Seq: 8, Time: 9, Data: []byte(`{"turn":1,"step":1}`)})
		}, func(last session.Event) []string { return []string{turnEnd(9, 9, 1)} }),
	)
})
