package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// countingLog is the root's log of the events es, each a type and its
// data; countingTurn and countingStep start turn 1 and its step 1.
func countingLog(es ...[2]any) []*session.Log {
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

var (
	countingTurn = [2]any{session.TypeTurnStart, session.TurnStartData{Turn: 1}}
	countingStep = [2]any{session.TypeStepStart, session.StepData{Turn: 1, Step: 1}}
)

// A first difference at a token count (count/tokens) is the count's drift:
// the report says which count of the session, and what the agent counts
// now, not a type or digest field of an event.
var _ = Describe("drift at a token count", func() {
	log, start, step := countingLog, countingTurn, countingStep
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

// A count the live endpoint failed while recording is recorded with its
// failure and 0 input tokens: a drift at it says it failed, not that it
// answered 0 tokens.
var _ = Describe("drift at a token count the live endpoint failed while recording", func() {
	log, start, step := countingLog, countingTurn, countingStep
	count := func(n int64, f *session.Failure) [2]any {
		return [2]any{session.TypeCountTokens, session.CountTokensData{Turn: 1, API: "anthropic-messages", Model: "m", Digest: "aaaaaaaaaaaaaaaa", InputTokens: n, Failure: f}}
	}
	unavailable := &session.Failure{Code: "SERVER", Message: "503 Service Unavailable", Status: 503}

	DescribeTable("names the failure the recording holds",
		func(golden, replay []*session.Log, change string) {
			o := judge.SettleVerdict(golden, replay)
			Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
			Expect(o.Drift.Kind()).To(Equal("token count drift"))
			Expect(o.Drift.Changes).To(ConsistOf(ContainSubstring(change)))
			Expect(o.Report()).NotTo(MatchRegexp(`\b0 tokens`))
		},
		Entry("one no longer asked for",
			log(start, count(0, unavailable), count(10, nil), step), log(start, step),
			"the agent no longer counts the recorded request here (anthropic-messages, model m, digest aaaaaaaaaaaa, failed with HTTP 503 SERVER); the replay has step/start"),
		Entry("one that failed with no answer",
			log(start, count(0, &session.Failure{Code: "TRANSPORT", Message: "connection refused"}), step), log(start, step),
			"(anthropic-messages, model m, digest aaaaaaaaaaaa, failed: TRANSPORT)"),
		Entry("one answered where the recording's failed",
			log(start, count(0, unavailable), step), log(start, count(10, nil), step),
			"the count answered 10 tokens, recorded failed with HTTP 503 SERVER"),
	)
})
