package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// A replay whose log is the recording's with one event more at its end
// (the agent now says one more thing before it stops) differs at that
// event: nothing before it tells.
var _ = Describe("a replay one event longer than its recording", func() {
	It("differs at the event the recording lacks, named by its seq and type", func() {
		start := [2]any{session.TypeTurnStart, session.TurnStartData{Turn: 1}}
		end := [2]any{session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}}}
		log := func(es ...[2]any) []*session.Log {
			return []*session.Log{{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: denseEvents(es...)}}
		}
		golden, replay := log(start), log(start, end)
		d := judge.CompareSessionPair(golden[0], replay[0])
		Expect(d).NotTo(BeNil())
		Expect(d.Seq).To(Equal(int64(1)))
		Expect(d.Type).To(Equal(session.TypeTurnEnd))
		Expect(d.Note).To(Equal("the replay goes on after the recording's 1 events, with seq 1 (turn/end) and 0 more"))

		o := judge.SettleVerdict(golden, replay)
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring("root (root session): the replay goes on after the recording's 1 events"))
	})
})
