package fakellm_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Driver.Check after a fully consumed recording", func() {
	// Every recorded call was replayed, so nothing is left over; a call
	// that failed must still fail the check, because the runtime may have
	// turned it into a tool result nobody looks at.
	It("fails when a live call failed although every recorded call was consumed", func() {
		root := rootLog("rec-root").turn(1, "delegate", "delegating", "DONE")
		child := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn).turn(1, "task a", "ALPHA")
		drv, err := fakellm.New([]*session.Log{root.log(), child.log()}, fakellm.WithRecordCommand("agentsnap record fixtures/spawn/x"))
		Expect(err).NotTo(HaveOccurred())

		Expect(say(drv, lRoot, 1, 1)).To(Equal("delegating"))
		Expect(say(drv, lSpawn, 1, 1)).To(Equal("ALPHA"))
		// An extra child the recording never had: its call fails, and the
		// agent swallows the failure.
		_, swallowed := call(drv, liveChild("live-9", "live-1", "call_extra", session.ModeSpawn), 1, 1)
		Expect(swallowed).To(MatchError(fakellm.ErrUnrecordedSession))
		Expect(say(drv, lRoot, 1, 2)).To(Equal("DONE"))

		err = drv.Check()
		Expect(err).To(HaveOccurred(), "every recorded call was consumed, but one live call failed")
		Expect(err).To(MatchError(fakellm.ErrUnrecordedSession))
		Expect(errors.Is(err, fakellm.ErrNotConsumed)).To(BeFalse(), "nothing was left over")
		Expect(err.Error()).To(Equal("fakellm: 1 model call failed during the replay:\n  " + swallowed.Error()))
	})

	It("passes when every recorded call was consumed and none failed", func() {
		root := rootLog("rec-root").turn(1, "say OK", "OK")
		drv, err := fakellm.New([]*session.Log{root.log()})
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
		Expect(drv.Check()).To(Succeed())
	})
})
