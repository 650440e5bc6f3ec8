package main

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
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

var _ = Describe("agentsnap check --max-growth against a baseline whose usage it cannot read", func() {
	It("fails the scenario, naming the events not counted, rather than measure growth from short counts", func() {
		work, base := fixtureCopy("billing/refund-flow"), fixtureCopy("billing/refund-flow")
		replaceIn(filepath.Join(base, refund, fixture.RootLog), `"inputTokens":284,`, `"inputTokens":"284",`)
		r := cli(work, nil, "check", refund, "--max-growth", "10%", "--baseline", base)
		Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring("budget: the baseline " + filepath.Join(base, refund) + ": 1 event(s) that may hold usage could not be read, so its counts may be short and growth cannot be measured: root: assistant/chunk seq "))
		Expect(r.stdout).To(ContainSubstring("; repair or re-record the baseline"))
	})
})
