package tree_test

import (
	"github.com/agentsnap/agentsnap/harness/tree"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Spawned and Forked naming a parent that did not make the call", func() {
	It("names the session that made it and what it created", func() {
		o := replay("parallel/nested-fan-out")
		msg := failure(func() { Expect(o).To(tree.Spawned("root", "call_bird")) })
		Expect(msg).To(HavePrefix("expected root's call call_bird to have spawned a session\n" +
			"but root made no call call_bird; root/call_f1 did, and it spawned root/call_f1/call_bird\n"))
		msg = failure(func() { Expect(o).To(tree.Forked("root", "call_ready")) })
		Expect(msg).To(ContainSubstring("but root made no call call_ready; root/call_s1 did, and it forked root/call_s1/call_ready\n"))
	})

	It("still says only that the call was not made when no session made it", func() {
		o := replay("parallel/nested-fan-out")
		msg := failure(func() { Expect(o).To(tree.Spawned("root", "call_nope")) })
		Expect(msg).To(ContainSubstring("but root made no call call_nope\n"))
	})
})
