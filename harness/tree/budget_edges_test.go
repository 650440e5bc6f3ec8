package tree_test

import (
	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/harness/tree"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a budget's prices that lack a model", func() {
	It("says to add it to the limit's own prices when the spec gave them, not to scenario.json", func() {
		o := replay("billing/refund-flow")
		other := budget.Prices{"gpt-4o": {Input: 2.5, Output: 10}}
		msg := failure(func() { Expect(o).To(tree.WithinBudget(budget.Limit{Cost: 1, Prices: other})) })
		Expect(msg).To(ContainSubstring(`no price for the model "playbook" (turn 1 step 1); add it to the budget.Limit.Prices given to WithinBudget (they replace scenario.json's): budget.Prices{"playbook": {Input: ..., Output: ...}} (per million tokens); priced: gpt-4o`))
		Expect(msg).NotTo(ContainSubstring("add it to scenario.json"))
	})

	It("still says scenario.json when the prices are the scenario's", func() {
		o := replay("billing/refund-flow")
		o.Fixture.Scenario.Prices = budget.Prices{"gpt-4o": {Input: 2.5, Output: 10}}
		msg := failure(func() { Expect(o).To(tree.WithinBudget(budget.Limit{Cost: 1})) })
		Expect(msg).To(ContainSubstring(`add it to scenario.json: "prices": {"playbook": {"input": ..., "output": ...}} (per million tokens); priced: gpt-4o`))
	})
})
