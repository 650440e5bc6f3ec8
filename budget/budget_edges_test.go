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

// An event that may hold usage and does not decode (a member of the wrong
// type: hand-edited, or another tool's log) is not counted; the caller is
// told which, and a bound is not said to hold on counts that may be short.
var _ = Describe("counting usage it cannot read", func() {
	It("names each event skipped, and Check fails rather than pass on short counts", func() {
		l := oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, `{"type":"usage","usage":{"inputTokens":"many","outputTokens":1}}`),
			"assistant/chunk", chunk(1, finishError),
			"request/header", header(2, "m"),
			"assistant/chunk", chunk(2, usageChunk(10, 5)),
			"assistant/chunk", chunk(2, finishStop),
			"assistant/message", `{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"usage":{"inputTokens":10,"outputTokens":"five"}}`,
		)
		s := budget.OfSession(l)
		Expect(s.Tokens).To(Equal(budget.Tokens{Input: 10, Output: 5}), "what was read is counted")
		Expect(s.Unread).To(HaveExactElements(
			HavePrefix("assistant/chunk seq 1: "),
			HavePrefix("assistant/message seq 6: "),
		))
		u, err := budget.Of([]*session.Log{l})
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Unread()).To(HaveExactElements(HavePrefix("root: assistant/chunk seq 1: "), HavePrefix("root: assistant/message seq 6: ")))
		err = u.Check(budget.Limit{Tokens: 1000})
		Expect(err).To(MatchError(HavePrefix("budget: 2 event(s) that may hold usage could not be read, so the counts may be short: root: assistant/chunk seq 1: ")))
		Expect(err.Error()).To(ContainSubstring("; repair the log or re-record the scenario"))
	})

	It("reads a log it can read whole with nothing unread", func() {
		u := usageOf("billing/refund-flow")
		Expect(u.Unread()).To(BeEmpty())
		for _, s := range u.Sessions {
			Expect(s.Unread).To(BeEmpty())
		}
	})
})
