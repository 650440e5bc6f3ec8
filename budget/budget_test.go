package budget_test

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// fixture reads a committed fixture's logs.
func fixture(name string) []*session.Log {
	GinkgoHelper()
	logs, err := session.ReadFolder(filepath.Join("..", "fixtures", name))
	Expect(err).NotTo(HaveOccurred())
	return logs
}

func usageOf(name string) *budget.Usage {
	GinkgoHelper()
	u, err := budget.Of(fixture(name))
	Expect(err).NotTo(HaveOccurred())
	return u
}

// oneLog builds a root log of the given events, each a type and its data.
func oneLog(events ...string) *session.Log {
	GinkgoHelper()
	lines := []string{`{"type":"session","version":0,"id":"root","createdAt":0,"delegationDepth":0}`}
	for i := 0; i < len(events); i += 2 {
		lines = append(lines, fmt.Sprintf(`{"type":%q,"seq":%d,"time":0,"data":%s}`, events[i], i/2, events[i+1]))
	}
	l, err := session.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "test.jsonl")
	Expect(err).NotTo(HaveOccurred())
	return l
}

func header(attempt int, model string) string {
	return fmt.Sprintf(`{"turn":1,"step":1,"attempt":%d,"provider":"p","model":%q}`, attempt, model)
}

func chunk(attempt int, c string) string {
	return fmt.Sprintf(`{"turn":1,"step":1,"attempt":%d,"chunk":%s}`, attempt, c)
}

const (
	finishStop  = `{"type":"finish","reason":{"kind":"stop"}}`
	finishError = `{"type":"finish","reason":{"kind":"error","failure":{"message":"reset"}}}`
)

func usageChunk(in, out int) string {
	return fmt.Sprintf(`{"type":"usage","usage":{"inputTokens":%d,"outputTokens":%d}}`, in, out)
}

func message(usage string) string {
	return `{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"usage":` + usage + `}`
}

var _ = Describe("counting usage", func() {
	It("sums each session's calls and the tree, in lineage order", func() {
		u := usageOf("billing/refund-flow")
		Expect(u.Sessions).To(HaveLen(2))
		root, child := u.Session("root"), u.Session("root/call_draft")
		Expect(root.Calls).To(HaveLen(3))
		Expect(root.Tokens).To(Equal(budget.Tokens{Input: 98 + 284 + 446, Output: 79 + 102 + 68}))
		Expect(child.Tokens).To(Equal(budget.Tokens{Input: 83, Output: 38}))
		Expect(child.Mode).To(Equal(session.ModeSpawn))
		Expect(u.Tokens.Total()).To(Equal(1198))
		Expect(u.Calls()).To(Equal(4))
		Expect(root.Calls[0]).To(Equal(budget.Call{Turn: 1, Step: 1, Attempt: 1, Model: "playbook", Tokens: budget.Tokens{Input: 98, Output: 79}, Reported: true, Finish: "tool-calls"}))
	})

	It("counts a fork child's own calls only, not the parent's calls in its seed", func() {
		u := usageOf("mixed/spawn-then-fork")
		fork := u.Session("root/call_recall")
		Expect(fork.Calls).To(HaveLen(1))
		Expect(fork.Tokens.Total()).To(Equal(101 + 17))
		Expect(u.Tokens.Total()).To(Equal(830 + 70 + 118))
	})

	It("counts a call without usage as unreported, with no tokens", func() {
		u := usageOf("errors/throw-midway")
		root := u.Session("root")
		Expect(root.Calls).To(HaveLen(2))
		Expect(root.Calls[0]).To(SatisfyAll(HaveField("Reported", false), HaveField("Finish", "error"), HaveField("Tokens", budget.Tokens{})))
		Expect(root.Unreported()).To(Equal(1))
		Expect(u.Unreported()).To(Equal(1))
		Expect(u.Tokens.Total()).To(Equal(57 + 25))
	})

	It("takes a failed call's usage from its usage chunk, since it has no assistant/message", func() {
		l := oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, usageChunk(40, 3)),
			"assistant/chunk", chunk(1, finishError),
			"request/header", header(2, "m"),
			"assistant/chunk", chunk(2, usageChunk(40, 9)),
			"assistant/chunk", chunk(2, finishStop),
			"assistant/message", message(`{"inputTokens":40,"outputTokens":9}`),
		)
		s := budget.OfSession(l)
		Expect(s.Calls).To(HaveLen(2))
		Expect(s.Calls[0]).To(SatisfyAll(HaveField("Reported", true), HaveField("Finish", "error"), HaveField("Tokens.Output", 3)))
		Expect(s.Tokens).To(Equal(budget.Tokens{Input: 80, Output: 12}))
	})

	It("prefers the assistant/message usage over the stream's, and reads cache reads and reasoning", func() {
		l := oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, usageChunk(1, 1)),
			"assistant/chunk", chunk(1, finishStop),
			"assistant/message", message(`{"inputTokens":1000,"outputTokens":200,"cacheReadTokens":400,"reasoningTokens":50}`),
		)
		s := budget.OfSession(l)
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Tokens).To(Equal(budget.Tokens{Input: 1000, Output: 200, CacheRead: 400, Reasoning: 50}))
		Expect(s.Tokens.Total()).To(Equal(1200), "cache reads are part of input, reasoning part of output")
		Expect(s.Tokens.String()).To(Equal("1200 tokens (1000 input, 400 from cache, 200 output, 50 reasoning)"))
	})

	It("counts a dsh log's calls by their streams, not by its request/header, a configuration", func() {
		dshChunk := func(c string) string { return `{"turn":1,"step":1,"chunk":` + c + `}` }
		l := oneLog(
			"request/header", `{"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"}},"reason":"initial"}`,
			"assistant/chunk", dshChunk(finishError),
			"assistant/chunk", dshChunk(usageChunk(12, 3)),
			"assistant/chunk", dshChunk(finishStop),
			"assistant/message", message(`{"inputTokens":12,"outputTokens":3}`),
		)
		s := budget.OfSession(l)
		Expect(s.Calls).To(Equal([]budget.Call{
			{Turn: 1, Step: 1, Finish: "error"},
			{Turn: 1, Step: 1, Tokens: budget.Tokens{Input: 12, Output: 3}, Reported: true, Finish: "stop"},
		}))
		Expect(s.Calls).To(HaveLen(len(l.ModelCalls())), "the calls session.ModelCalls counts")
	})

	It("counts a call cut short by a user's cancel, which has no finish", func() {
		l := oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, `{"type":"text-delta","index":0,"text":"Here"}`),
		)
		s := budget.OfSession(l)
		Expect(s.Calls).To(Equal([]budget.Call{{Turn: 1, Step: 1, Attempt: 1, Model: "m"}}))
		Expect(s.Unreported()).To(Equal(1))
	})

	It("refuses logs that are not one tree", func() {
		logs := fixture("billing/refund-flow")
		_, err := budget.Of(logs[1:])
		Expect(err).To(MatchError(HavePrefix("budget: ")))
		Expect(err).To(MatchError(session.ErrLineage))
	})
})

var _ = Describe("cost", func() {
	cached := func() *budget.Session {
		return budget.OfSession(oneLog(
			"request/header", header(1, "m"),
			"assistant/chunk", chunk(1, finishStop),
			"assistant/message", message(`{"inputTokens":1000,"outputTokens":200,"cacheReadTokens":400}`),
		))
	}

	DescribeTable("prices a call per million tokens",
		func(p budget.Price, want float64) {
			c, err := cached().Cost(budget.Prices{"m": p})
			Expect(err).NotTo(HaveOccurred())
			Expect(c).To(BeNumerically("~", want, 1e-15))
		},
		Entry("cache reads at their own price", budget.Price{Input: 1, Output: 2, CacheRead: 0.5}, (600*1+400*0.5+200*2)/1e6),
		Entry("cache reads as input without one", budget.Price{Input: 1, Output: 2}, (1000*1+200*2)/1e6),
	)

	It("prices a whole tree by each call's model", func() {
		u := usageOf("billing/refund-flow")
		c, err := u.Cost(budget.Prices{"playbook": {Input: 0.15, Output: 0.6}})
		Expect(err).NotTo(HaveOccurred())
		Expect(c).To(BeNumerically("~", (911*0.15+287*0.6)/1e6, 1e-15))
		Expect(budget.FormatCost(c)).To(Equal("0.00030885"))
	})

	It("names a model without a price, the session, and what to add", func() {
		_, err := usageOf("billing/refund-flow").Cost(budget.Prices{"gpt-4o": {Input: 1}})
		Expect(err).To(MatchError(budget.ErrNoPrice))
		Expect(err.Error()).To(Equal(`budget: session root: no price for the model "playbook" (turn 1 step 1); add it to scenario.json: "prices": {"playbook": {"input": ..., "output": ...}} (per million tokens); priced: gpt-4o`))
	})

	DescribeTable("reads prices from JSON and refuses what would price wrongly",
		func(text, wantErr string) {
			var p budget.Prices
			err := json.Unmarshal([]byte(text), &p)
			if wantErr == "" {
				Expect(err).NotTo(HaveOccurred())
				Expect(p).To(Equal(budget.Prices{"m": {Input: 0.15, Output: 0.6, CacheRead: 0.075}}))
				return
			}
			Expect(err).To(MatchError(wantErr))
		},
		Entry("a price", `{"m": {"input": 0.15, "output": 0.6, "cacheRead": 0.075}}`, ""),
		Entry("a misspelled member", `{"m": {"input": 0.15, "output": 0.6, "cachedRead": 0.075}}`,
			`model "m": unknown member "cachedRead"; a price has input, output and cacheRead (per million tokens)`),
		Entry("a negative price", `{"m": {"input": -1, "output": 0.6}}`, `model "m": input is -1; a price per million tokens is 0 or more`),
		Entry("a price as a string", `{"m": {"input": "0.15"}}`, `model "m": input: want a number (per million tokens), found JSON string`),
		Entry("a bare number", `{"m": 0.15}`, `model "m": want an object such as {"input": 0.15, "output": 0.6}, found JSON number`),
		Entry("not an object", `[1]`, `want an object of prices per model, such as {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}`),
	)

	DescribeTable("formats costs without an exponent",
		func(c float64, want string) { Expect(budget.FormatCost(c)).To(Equal(want)) },
		Entry("zero", 0.0, "0"),
		Entry("a small fraction", 0.00030885, "0.00030885"),
		Entry("rounded to six digits", 1.0/3, "0.333333"),
		Entry("a large cost", 1234.5, "1234.5"),
	)
})

var _ = Describe("limits", func() {
	prices := budget.Prices{"playbook": {Input: 0.15, Output: 0.6}}

	It("passes a tree within every bound", func() {
		u := usageOf("billing/refund-flow")
		Expect(u.Check(budget.Limit{Tokens: 1198, SessionTokens: 1077, Cost: 0.0004, Prices: prices, Baseline: u})).To(Succeed())
		Expect(u.Check(budget.Limit{})).To(Succeed(), "a zero limit bounds nothing")
	})

	DescribeTable("fails each bound it exceeds with what was used and the limit",
		func(l budget.Limit, want string) {
			err := usageOf("billing/refund-flow").Check(l)
			Expect(err).To(MatchError(want))
		},
		Entry("tree tokens", budget.Limit{Tokens: 1000}, "budget: the tree used 1198 tokens, over the limit of 1000"),
		Entry("session tokens", budget.Limit{SessionTokens: 500}, "budget: session root used 1077 tokens, over the per-session limit of 500"),
		Entry("cost", budget.Limit{Cost: 0.0003, Prices: prices}, "budget: the tree cost 0.00030885, over the limit of 0.0003"),
		Entry("cost without a price", budget.Limit{Cost: 0.0003}, `budget: cost: session root: no price for the model "playbook" (turn 1 step 1); add it to scenario.json: "prices": {"playbook": {"input": ..., "output": ...}} (per million tokens); priced: none`),
		Entry("several at once", budget.Limit{Tokens: 1000, SessionTokens: 100},
			"budget: the tree used 1198 tokens, over the limit of 1000\nbudget: session root used 1077 tokens, over the per-session limit of 100\nbudget: session root/call_draft used 121 tokens, over the per-session limit of 100"),
	)
})

var _ = Describe("growth over a baseline", func() {
	tokens := func(n int) *budget.Usage { return &budget.Usage{Tokens: budget.Tokens{Input: n}} }

	DescribeTable("compares the trees' total tokens",
		func(base, now int, share float64, text string) {
			g, err := budget.Compare(tokens(base), tokens(now), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(g.Measure).To(Equal("tokens"))
			if math.IsInf(share, 1) {
				Expect(math.IsInf(g.Share, 1)).To(BeTrue())
			} else {
				Expect(g.Share).To(BeNumerically("~", share, 1e-12))
			}
			Expect(g.String()).To(Equal(text))
		},
		Entry("growth", 1000, 1250, 0.25, "the tree's tokens grew by 25.0% over the baseline (1000 -> 1250)"),
		Entry("shrinking", 1000, 900, -0.1, "the tree's tokens shrank by 10.0% over the baseline (1000 -> 900)"),
		Entry("no change", 1000, 1000, 0.0, "the tree's tokens did not grow over the baseline (1000 -> 1000)"),
		Entry("from nothing", 0, 10, math.Inf(1), "the tree's tokens grew from nothing over the baseline (0 -> 10)"),
		Entry("nothing at all", 0, 0, 0.0, "the tree's tokens did not grow over the baseline (0 -> 0)"),
	)

	It("compares cost when prices are given, both trees priced alike", func() {
		base, now := usageOf("errors/throw-midway"), usageOf("billing/refund-flow")
		g, err := budget.Compare(base, now, budget.Prices{"playbook": {Input: 1, Output: 1}})
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Measure).To(Equal("cost"))
		Expect(g.Base).To(BeNumerically("~", 82/1e6, 1e-15))
		Expect(g.Now).To(BeNumerically("~", 1198/1e6, 1e-15))
		_, err = budget.Compare(base, now, budget.Prices{"other": {Input: 1}})
		Expect(err).To(MatchError(HavePrefix(`budget: the baseline: budget: session root: no price for the model "playbook"`)))
	})

	It("fails growth beyond the allowed share, and allows it up to the share", func() {
		now := tokens(1200)
		Expect(now.Check(budget.Limit{Baseline: tokens(1000), Growth: 0.2})).To(Succeed(), "exactly 20% is allowed")
		Expect(now.Check(budget.Limit{Baseline: tokens(1000), Growth: 0.1})).To(MatchError(
			"budget: the tree's tokens grew by 20.0% over the baseline (1000 -> 1200), more than the allowed 10.0%"))
		Expect(now.Check(budget.Limit{Baseline: tokens(1200)})).To(Succeed(), "no growth with a zero share")
		Expect(now.Check(budget.Limit{Baseline: tokens(1199)})).To(HaveOccurred(), "a zero share allows no growth")
	})
})

var _ = Describe("the usage table", func() {
	It("shows each session, the tree, and cost with prices", func() {
		lines := usageOf("billing/refund-flow").Table(budget.Prices{"playbook": {Input: 0.15, Output: 0.6}})
		Expect(strings.Join(lines, "\n")).To(Equal(strings.Join([]string{
			"session          calls  input  cache read  output  reasoning  total        cost",
			"root                 3    828           0     249          0   1077   0.0002736",
			"root/call_draft      1     83           0      38          0    121  0.00003525",
			"tree                 4    911           0     287          0   1198  0.00030885",
		}, "\n")))
	})

	It("counts unreported calls and marks a cost it cannot price", func() {
		lines := usageOf("errors/throw-midway").Table(budget.Prices{})
		Expect(lines).To(Equal([]string{
			"session  calls  input  cache read  output  reasoning  total  unreported  cost",
			"root         2     57           0      25          0     82           1     ?",
			"tree         2     57           0      25          0     82           1     ?",
		}))
	})
})
