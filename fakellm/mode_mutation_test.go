package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// A mode is compared only when both sides state one: a recorded child
// that names its call but no mode, or a live child whose runtime does not
// say how it was made, is routed by the call id alone.
var _ = Describe("routing a child when one side states no mode", func() {
	DescribeTable("serves the recorded child's answer",
		func(recorded, live session.Mode) {
			root := rootLog("rec-root")
			root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
			root.chunks(1, 1, 0, delegation("call_1")...)
			root.chunks(1, 2, 0, answer("DONE")...)
			root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
			child := childLog("session.1.jsonl", "rec-c", root, "call_1", recorded).turn(1, "go", "CHILD")
			drv, err := fakellm.New([]*session.Log{root.log(), child.log()})
			Expect(err).NotTo(HaveOccurred())

			Expect(say(drv, lRoot, 1, 1)).To(BeEmpty()) // the delegation
			Expect(say(drv, liveChild("live-c", lRoot.ID, "call_1", live), 1, 1)).To(Equal("CHILD"))
			Expect(say(drv, lRoot, 1, 2)).To(Equal("DONE"))
			Expect(drv.Check()).To(Succeed())
		},
		Entry("a recorded child without a mode, a live fork", session.Mode(""), session.ModeFork),
		Entry("a recorded spawn, a live child without a mode", session.ModeSpawn, session.Mode("")),
	)
})
