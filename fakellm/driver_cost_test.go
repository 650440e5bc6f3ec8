package fakellm_test

import (
	"fmt"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Recording.Driver of a session that starts no child", func() {
	It("allocates as much for forty turns as for two: a replay's start does not grow with the conversation", func() {
		allocs := func(turns int) float64 {
			b := rootLog("root")
			for t := 1; t <= turns; t++ { // a tool call, then the answer
				b.ev(session.TypeTurnStart, session.TurnStartData{Turn: t, Trigger: "user"})
				b.ev(session.TypeStepStart, session.StepData{Turn: t, Step: 1})
				b.chunks(t, 1, 0, delegation(fmt.Sprintf("call_%d", t))...)
				b.ev(session.TypeStepEnd, session.StepData{Turn: t, Step: 1})
				b.ev(session.TypeStepStart, session.StepData{Turn: t, Step: 2})
				b.chunks(t, 2, 0, answer("answered")...)
				b.ev(session.TypeStepEnd, session.StepData{Turn: t, Step: 2})
				b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: t, Reason: session.EndReason{Kind: session.TurnCompleted}})
			}
			rec, err := fakellm.Prepare([]*session.Log{b.log()})
			Expect(err).NotTo(HaveOccurred())
			return testing.AllocsPerRun(20, func() {
				if _, err := rec.Driver(); err != nil {
					panic(err)
				}
			})
		}
		few, many := allocs(2), allocs(40)
		Expect(many).To(Equal(few), "2 turns: %v allocations, 40: %v", few, many)
	})
})
