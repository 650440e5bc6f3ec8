package tree_test

import (
	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/harness/tree"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a budget's prices", func() {
	It("are the limit's own when it gives them, the scenario's only otherwise", func() {
		o := replay("billing/refund-flow")
		o.Fixture.Scenario.Prices = budget.Prices{"playbook": {Input: 0.15, Output: 0.6}}
		// Under the scenario's prices the tree costs 0.00030885; under ten
		// times them, ten times that.
		Expect(o).To(tree.WithinBudget(budget.Limit{Cost: 0.0004}))
		dear := budget.Prices{"playbook": {Input: 1.5, Output: 6}}
		msg := failure(func() { Expect(o).To(tree.WithinBudget(budget.Limit{Cost: 0.0004, Prices: dear})) })
		Expect(msg).To(ContainSubstring("  the tree cost 0.0030885, over the limit of 0.0004\n"))
	})
})
