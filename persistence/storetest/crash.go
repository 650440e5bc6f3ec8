package storetest

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

func describeCrashRepair(s *suite) {
	Describe("crash repair", func() {
		var started, finished []session.Event
		durable := 0

		// The process stored a completed turn and the start of a turn that
		// runs two tools, then died while appending the rest of that turn.
		BeforeEach(func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "say OK", "OK"))
			started, finished = ToolTurn(8, 2)
			Expect(s.store.Append(s.ctx, "root", started)).To(Succeed())
			durable = 8 + len(started)
			Expect(s.store.Close()).To(Succeed())
			Expect(s.storage.Crash("root", finished)).To(Succeed())
			s.store = s.open(s.storage)
		})

		It("loads what is durable and closes the interrupted turn, without writing", func() {
			l := s.load("root")
			Expect(session.Validate(&l.Header, l.Events)).To(Succeed())
			Expect(Encoded(&session.Log{Header: l.Header, Events: l.Events[:durable]})).
				To(Equal(Encoded(&session.Log{Header: l.Header, Events: append(CompletedTurn(0, 1, "say OK", "OK"), started...)})),
					"every acknowledged event is there")
			survived := survivedPrefix(l.Events[durable:], finished)
			kept := l.Events[:durable+survived]
			closers := l.Events[durable+survived:]
			Expect(encodeAll(closers)).To(Equal(encodeAll(persistence.Closers(kept))),
				"after the %d events that survived the crash come the closers", survived)
			expectClosedTurn(l.Events, 2)

			Expect(Encoded(s.load("root"))).To(Equal(Encoded(l)), "a second Load repairs the same way")
			s.reopen()
			Expect(Encoded(s.load("root"))).To(Equal(Encoded(l)), "Load wrote nothing")
		})

		It("writes the closers with the next Append and continues after them", func() {
			l := s.load("root")
			next := CompletedTurn(int64(len(l.Events)), 3, "resume", "resumed")
			Expect(s.store.Append(s.ctx, "root", next)).To(Succeed())
			s.reopen()
			after := s.load("root")
			Expect(after.Torn).To(BeNil(), "the torn bytes are gone")
			Expect(Encoded(after)).To(Equal(Encoded(&session.Log{Header: l.Header, Events: append(l.Events, next...)})))
		})

		It("refuses an Append that starts where the durable events end, before the closers", func() {
			l := s.load("root")
			closers := len(l.Events) - durable - survivedPrefix(l.Events[durable:], finished)
			err := s.store.Append(s.ctx, "root", CompletedTurn(int64(len(l.Events)-closers), 3, "p", "a"))
			Expect(err).To(MatchError(persistence.ErrOutOfOrder))
			Expect(err.Error()).To(ContainSubstring("interrupted turn"))
		})
	})
}

// survivedPrefix returns how many events at the start of got equal the
// first events of the batch that was being appended.
func survivedPrefix(got, batch []session.Event) int {
	n := 0
	for n < len(got) && n < len(batch) && line(got[n]) == line(batch[n]) {
		n++
	}
	return n
}

func line(e session.Event) string { return string(session.AppendEvent(nil, &e)) }

func encodeAll(events []session.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = line(e)
	}
	return out
}

// expectClosedTurn checks that events end with turn turn closed as
// interrupted and that every tool call of that turn has exactly one result.
func expectClosedTurn(events []session.Event, turn int) {
	GinkgoHelper()
	Expect(session.CompletedPrefix(events)).To(Equal(len(events)), "the log ends with a turn/end")
	var end session.TurnEndData
	Expect(events[len(events)-1].Decode(&end)).To(Succeed())
	Expect(end.Turn).To(Equal(turn))
	Expect(end.Reason.Kind).To(Equal(session.TurnInterrupted))
	results := map[string]int{}
	for _, e := range events {
		var d session.ToolResultData
		if e.Type != session.TypeToolResult || e.Decode(&d) != nil || d.Turn != turn {
			continue
		}
		for _, p := range d.Message.Content {
			results[p.ToolCallID]++
			if p.IsError {
				Expect(p.Content).To(Equal([]session.Part{session.TextPart(persistence.InterruptedResult)}))
			}
		}
	}
	Expect(results).To(Equal(map[string]int{"call_a": 1, "call_b": 1}), "every call answered once")
}
