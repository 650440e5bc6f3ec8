package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// refusedThenAnswered is a root log whose first model call the driver
// refused before it streamed (a request/header, no chunks) and whose retry
// answered: two calls, one entry.
func refusedThenAnswered() *session.Log {
	b := rootLog("r")
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
	b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Attempt: 1, Provider: "p", Model: "m"})
	b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Attempt: 2, Provider: "p", Model: "m"})
	b.chunks(1, 1, 2, answer("whole")...)
	b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}}).log()
}

// forkOfRetried is a fork child of retried(true) whose own turn retried its
// one step: its seed's calls are its parent's, not counted.
func forkOfRetried() *session.Log {
	parent := &builder{l: retried(true)}
	b := childLog("session.1.jsonl", "c", parent, "call_1", session.ModeFork).seedFrom(parent)
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 2})
	b.chunks(2, 1, 1, rateLimited)
	b.chunks(2, 1, 2, answer("again")...)
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 2, Reason: session.EndReason{Kind: session.TurnCompleted}}).log()
}

var _ = Describe("Derive's call numbers", func() {
	DescribeTable("number each entry's call as the log's model calls are numbered (inspect, drift, the report): failed attempts counted, in either attempt mode",
		func(l *session.Log, mode fakellm.Attempts, want []int) {
			s, err := deriveBoth(l, fakellm.DeriveOptions{Attempts: mode})
			Expect(err).NotTo(HaveOccurred())
			calls := l.ModelCalls()
			got := make([]int, len(s.Entries))
			for i, e := range s.Entries {
				got[i] = e.Call
				Expect(e.Call).To(BeNumerically(">=", 1))
				Expect(e.Call).To(BeNumerically("<=", len(calls)))
				c := calls[e.Call-1]
				Expect([]int{e.Turn, e.Step, e.Attempt}).To(Equal([]int{c.Turn, c.Step, c.Attempt}), "entry %d is not the log's call %d", i, e.Call)
			}
			Expect(got).To(Equal(want))
		},
		Entry("every attempt", retried(true), fakellm.AttemptsEvery, []int{1, 2, 3}),
		Entry("acted-on: the failed call 1 is left out, not renumbered", retried(true), fakellm.AttemptsActedOn, []int{2, 3}),
		Entry("acted-on, a log without attempt numbers (dsh)", retried(false), fakellm.AttemptsActedOn, []int{2, 3}),
		Entry("a call refused before it streamed has no entry but its number", refusedThenAnswered(), fakellm.AttemptsEvery, []int{2}),
		Entry("a fork child: its own calls, from 1", forkOfRetried(), fakellm.AttemptsActedOn, []int{2}),
	)

	It("are in the entries' JSON, which a sidecar reads back", func() {
		s, err := deriveBoth(retried(true), fakellm.DeriveOptions{Attempts: fakellm.AttemptsActedOn})
		Expect(err).NotTo(HaveOccurred())
		printed := fakellm.MarshalScript(s.Entries)
		Expect(string(printed)).To(ContainSubstring(`"attempt": 2,` + "\n" + `    "call": 2,`))
		o, err := fakellm.ParseOverride([]byte(`{"session.jsonl": {"replace": `+string(printed)+`}}`), "replay.override.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Sessions["session.jsonl"].Replace).To(Equal(s.Entries))
	})

	It("are bounded in a sidecar as turn, step and attempt are", func() {
		_, err := fakellm.ParseOverride([]byte(`{"session.jsonl": {"patch": {"0": {"kind": "hang", "chunks": [], "call": -1}}}}`), "replay.override.json")
		Expect(err).To(MatchError(ContainSubstring(`patch "0": entry member "call" is -1; use 1 to 1000000 (0: not checked)`)))
	})
})
