package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// A first difference at a token count (count/tokens) is the count's drift:
// the report says which count of the session, and what the agent counts
// now, not a type or digest field of an event.
var _ = Describe("drift at a token count", func() {
	log := func(es ...[2]any) []*session.Log {
		GinkgoHelper()
		l := &session.Log{Header: session.Header{ID: "root", AgentPreset: "default"}}
		for _, e := range es {
			ev, err := session.NewEvent(e[0].(string), e[1])
			Expect(err).NotTo(HaveOccurred())
			ev.Seq = int64(len(l.Events))
			l.Events = append(l.Events, ev)
		}
		return []*session.Log{l}
	}
	start := [2]any{session.TypeTurnStart, session.TurnStartData{Turn: 1}}
	step := [2]any{session.TypeStepStart, session.StepData{Turn: 1, Step: 1}}
	count := func(digest string, n int64) [2]any {
		return [2]any{session.TypeCountTokens, session.CountTokensData{Turn: 1, API: "anthropic-messages", Model: "m", Digest: digest, InputTokens: n}}
	}

	DescribeTable("names the count and what the agent does instead",
		func(golden, replay []*session.Log, n int, change string) {
			o := judge.SettleVerdict(golden, replay)
			Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
			Expect(o.Drift.Kind()).To(Equal("token count drift"))
			Expect(o.Drift.Count).To(Equal(n))
			Expect(o.Drift.Changes).To(ConsistOf(ContainSubstring(change)))
			Expect(o.Differences).To(BeEmpty())
			Expect(o.Report()).To(ContainSubstring("token count drift: root (root session), token count %d (turn 1 step 0): %s", n, change))
		},
		Entry("one no longer asked for",
			log(start, count("aaaaaaaaaaaaaaaa", 10), step), log(start, step), 1,
			"the agent no longer counts the recorded request here (anthropic-messages, model m, digest aaaaaaaaaaaa, 10 tokens); the replay has step/start"),
		Entry("one the replay ends before",
			log(start, count("aa", 10), count("bb", 20)), log(start, count("aa", 10)), 2,
			"the agent no longer counts the recorded request here (anthropic-messages, model m, digest bb, 20 tokens); the replay ends there"),
		Entry("one asked for where none was recorded",
			log(start, step), log(start, count("aa", 10), step), 1,
			"the agent counts a request here (anthropic-messages, model m, digest aa) where the recording has step/start"),
		Entry("another request counted",
			log(start, count("aa", 10), count("bb", 20)), log(start, count("bb", 20), count("aa", 10)), 1,
			"the agent counts another request here: anthropic-messages, model m, digest aa recorded, anthropic-messages, model m, digest bb now"),
	)
})
