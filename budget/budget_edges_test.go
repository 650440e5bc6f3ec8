package budget_test

import (
	"math"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Counts too large for an int to sum — a hand-edited log, a buggy
// provider — hold at the bound: a total that wrapped to a negative number
// would pass every budget.
var _ = Describe("counting usage that overflows an int", func() {
	It("holds sums at the bound, so a budget still refuses them", func() {
		l := oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, usageChunk(math.MaxInt, 1)),
			"assistant/chunk", chunk(1, finishError),
			"request/header", header(2, "m"),
			"assistant/chunk", chunk(2, usageChunk(math.MaxInt, 1)),
			"assistant/chunk", chunk(2, finishError),
		)
		u, err := budget.Of([]*session.Log{l})
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Tokens).To(Equal(budget.Tokens{Input: math.MaxInt, Output: 2}))
		Expect(u.Tokens.Total()).To(Equal(math.MaxInt))
		Expect(u.Check(budget.Limit{Tokens: 1000})).To(MatchError(ContainSubstring("the tree used 9223372036854775807 tokens, over the limit of 1000")))
		Expect(budget.Tokens{Input: math.MinInt}.Plus(budget.Tokens{Input: -1}).Input).To(Equal(math.MinInt))
	})
})
