package budget_test

import (
	"math"

	"github.com/agentsnap/agentsnap/budget"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Guarantees of the limits and the usage count that mutation testing found
// unguarded.
var _ = Describe("limits at their bounds", func() {
	// priced is a tree of one session whose one call used input tokens of model.
	priced := func(model string, input int) *budget.Usage {
		s := &budget.Session{Path: "root", ID: "root", Calls: []budget.Call{{Turn: 1, Step: 1, Attempt: 1, Model: model, Tokens: budget.Tokens{Input: input}, Reported: true}}}
		s.Tokens = s.Calls[0].Tokens
		return &budget.Usage{Sessions: []*budget.Session{s}, Tokens: s.Tokens}
	}
	tokens := func(n int) *budget.Usage { return &budget.Usage{Tokens: budget.Tokens{Input: n}} }

	It("allows a cost exactly at the limit", func() {
		u := priced("m", 1_000_000) // costs exactly 1
		Expect(u.Check(budget.Limit{Cost: 1, Prices: budget.Prices{"m": {Input: 1}}})).To(Succeed())
		Expect(u.Check(budget.Limit{Cost: 0.5, Prices: budget.Prices{"m": {Input: 1}}})).To(MatchError("budget: the tree cost 1, over the limit of 0.5"))
	})

	It("takes growth equal to the share within rounding as not exceeding it", func() {
		// 300 -> 330 input tokens at 0.1 is exactly 10% growth, which
		// floating point computes as a hair more.
		prices := budget.Prices{"m": {Input: 0.1}}
		g, err := budget.Compare(priced("m", 300), priced("m", 330), prices)
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Exceeds(0.1)).To(BeFalse())
		Expect(g.Exceeds(0.09)).To(BeTrue())
		Expect(priced("m", 330).Check(budget.Limit{Prices: prices, Baseline: priced("m", 300), Growth: 0.1})).To(Succeed())
	})

	It("fails a comparison when the tree now uses a model without a price", func() {
		_, err := budget.Compare(priced("m", 100), priced("x", 100), budget.Prices{"m": {Input: 1}})
		Expect(err).To(MatchError(budget.ErrNoPrice))
		Expect(err).To(MatchError(ContainSubstring(`"x"`)))
	})

	It("grows from nothing when the baseline cost nothing and the tree costs less than one unit", func() {
		g, err := budget.Compare(&budget.Usage{}, priced("m", 1000), budget.Prices{"m": {Input: 0.15}})
		Expect(err).NotTo(HaveOccurred())
		Expect(math.IsInf(g.Share, 1)).To(BeTrue())
		Expect(g.Exceeds(10)).To(BeTrue())
	})

	It("lists the growth bound with the token bound when both are exceeded", func() {
		err := tokens(1200).Check(budget.Limit{Tokens: 1000, Baseline: tokens(1000), Growth: 0.1})
		Expect(err).To(MatchError("budget: the tree used 1200 tokens, over the limit of 1000\n" +
			"budget: the tree's tokens grew by 20.0% over the baseline (1000 -> 1200), more than the allowed 10.0%"))
	})
})

var _ = Describe("counting usage with a configuration request/header", func() {
	It("keeps the model of the call's own request/header when a dsh configuration header follows", func() {
		l := oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, usageChunk(5, 2)),
			"assistant/chunk", chunk(1, finishStop),
			"request/header", `{"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"}},"reason":"compaction"}`,
		)
		s := budget.OfSession(l)
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Calls[0].Model).To(Equal("m"))
	})
})
