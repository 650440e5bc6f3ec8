package fakellm_test

import (
	"time"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Driver.NeverWaits", func() {
	plain := func(opts ...fakellm.Option) *fakellm.Driver {
		GinkgoHelper()
		drv, err := fakellm.New([]*session.Log{rootLog("rec-root").turn(1, "hi", "hello").log()}, opts...)
		Expect(err).NotTo(HaveOccurred())
		return drv
	}

	It("is true only when every call answers at once: no recorded hang, no pace, no schedule", func() {
		Expect(plain().NeverWaits()).To(BeTrue())
		Expect(plain(fakellm.WithVirtualTime()).NeverWaits()).To(BeTrue(), "virtual time alone waits for nothing")
		Expect(hangingPair().NeverWaits()).To(BeFalse(), "a recorded hang")
		Expect(plain(fakellm.WithPace(time.Millisecond)).NeverWaits()).To(BeFalse(), "a pace")
		Expect(plain(fakellm.WithSchedule(1)).NeverWaits()).To(BeFalse(), "a schedule")
	})
})
