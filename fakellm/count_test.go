package fakellm_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// countLog is a root whose turn counts the requests digests before its
// model call, with inputTokens 10, 20, … in order.
func countLog(digests ...string) *session.Log {
	b := rootLog("root")
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
	b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}})
	for i, d := range digests {
		b.ev(session.TypeCountTokens, session.CountTokensData{Turn: 1, API: "anthropic-messages", Digest: d, InputTokens: int64(10 * (i + 1))})
	}
	b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
	b.chunks(1, 1, 1, answer("a")...)
	b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
	b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
	return b.log()
}

var _ = Describe("recorded token counts (count/tokens)", func() {
	count := func(drv *fakellm.Driver, digest string) (int64, error) {
		rec, err := drv.ReplayCount(context.Background(), liveRoot("root"), session.CountTokensData{Turn: 1, API: "anthropic-messages", Digest: digest})
		return rec.InputTokens, err
	}

	It("answer the n-th request of a digest with the n-th record of that digest, whatever other digests come between", func() {
		drv, err := fakellm.New([]*session.Log{countLog("aa", "bb", "aa")})
		Expect(err).NotTo(HaveOccurred())
		for _, want := range []struct {
			digest string
			n      int64
		}{{"bb", 20}, {"aa", 10}, {"aa", 30}} {
			Expect(count(drv, want.digest)).To(Equal(want.n), "digest %s", want.digest)
		}
		say(drv, liveRoot("root"), 1, 1)
		Expect(drv.Check()).To(Succeed())
	})

	It("are drift for a request no record is left for, naming the session, the request and the record it most likely replaced", func() {
		drv, err := fakellm.New([]*session.Log{countLog("aa", "bb")})
		Expect(err).NotTo(HaveOccurred())
		Expect(count(drv, "aa")).To(Equal(int64(10)))
		_, err = count(drv, "cccccccccccccccccccc")
		Expect(err).To(MatchError(fakellm.ErrCountDrift))
		Expect(err).To(MatchError(ContainSubstring("session root (session.jsonl): token count request 2 of the session (anthropic-messages, with its log at turn 1 step 0) counts a request with digest cccccccccccc, and the recording's next count of this session is of another request (turn 1 step 0, digest bb, 20 tokens)")))
		say(drv, liveRoot("root"), 1, 1)
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrCountDrift))
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err).To(MatchError(ContainSubstring("live session root never asked for the recorded token count of turn 1 step 0 (anthropic-messages, digest bb, 20 tokens)")))
	})

	It("are refused where they are when a hand-edited one has no digest", func() {
		b := rootLog("root")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		b.ev(session.TypeCountTokens, map[string]any{"turn": 1, "step": 0, "api": "gemini", "inputTokens": 3})
		_, err := fakellm.New([]*session.Log{b.log()})
		Expect(err).To(MatchError(And(ContainSubstring("session root: count/tokens seq 1 has no \"digest\""), ContainSubstring("re-record the scenario"))))
	})
})
