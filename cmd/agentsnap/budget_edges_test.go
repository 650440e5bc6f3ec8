package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap check --max-growth as a bare number above 1", func() {
	It("warns that 20 allows 2000% and says how to write 20%, and keeps quiet for 0.2, 20% and 150%", func() {
		work, base := fixtureCopy("billing/refund-flow"), fixtureCopy("billing/refund-flow")
		r := cli(work, nil, "check", refund, "--max-growth", "20", "--baseline", base)
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stderr).To(Equal("agentsnap check: warning: --max-growth 20 is a share: it allows growth of 2000%; for 20% write 20% (or 0.2), or write 2000% to say that growth is meant\n"))
		for _, share := range []string{"0.2", "1", "20%", "150%"} {
			r := cli(work, nil, "check", refund, "--max-growth", share, "--baseline", base)
			Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
			Expect(r.stderr).To(BeEmpty(), share)
		}
	})
})
