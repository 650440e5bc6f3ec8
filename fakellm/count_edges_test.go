package fakellm_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a recorded session never called whose recording holds only token counts", func() {
	It("is named by what it recorded, its token counts, not as tool results", func() {
		root := rootLog("rec-root").turn(1, "hi", "hello")
		child := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn)
		child.ev(session.TypeCountTokens, session.CountTokensData{Turn: 1, API: "gemini", Digest: "aa", InputTokens: 7})
		child.ev(session.TypeCountTokens, session.CountTokensData{Turn: 1, API: "gemini", Digest: "bb", InputTokens: 9})
		drv, err := fakellm.New([]*session.Log{root.log(), child.log()})
		Expect(err).NotTo(HaveOccurred())
		say(drv, lRoot, 1, 1)
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(ContainSubstring("session root/call_1 (spawn; session.1.jsonl): never called (2 recorded token counts)"))

		child.ev(session.TypeMCPCall, session.MCPCallData{Turn: 1, Step: 1, Server: "clock", Method: "tools/call",
			Params: json.RawMessage(`{"name":"now"}`), Result: json.RawMessage(`{"content":[]}`)})
		drv, err = fakellm.New([]*session.Log{root.log(), child.log()})
		Expect(err).NotTo(HaveOccurred())
		say(drv, lRoot, 1, 1)
		Expect(drv.Check().Error()).To(ContainSubstring("never called (1 recorded MCP answer and 2 token counts)"))
	})
})

// A count the live endpoint failed while recording is recorded with its
// failure and 0 input tokens: the replay driver's messages name the
// failure, not 0 tokens.
var _ = Describe("a recorded token count the live endpoint failed", func() {
	It("is named by its failure in a drift and in the consumption check, not as 0 tokens", func() {
		b := rootLog("root")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}})
		b.ev(session.TypeCountTokens, session.CountTokensData{Turn: 1, API: "anthropic-messages", Digest: "aa",
			Failure: &session.Failure{Code: "SERVER", Message: "anthropic: HTTP 503 Service Unavailable", Status: 503}})
		b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
		b.chunks(1, 1, 1, answer("a")...)
		b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
		b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		drv, err := fakellm.New([]*session.Log{b.log()})
		Expect(err).NotTo(HaveOccurred())

		_, err = drv.ReplayCount(context.Background(), liveRoot("root"), session.CountTokensData{Turn: 1, API: "anthropic-messages", Digest: "bb"})
		Expect(err).To(MatchError(fakellm.ErrCountDrift))
		Expect(err).To(MatchError(ContainSubstring("the recording's next count of this session is of another request (turn 1 step 0, digest aa, failed with HTTP 503 SERVER)")))
		say(drv, liveRoot("root"), 1, 1)
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err).To(MatchError(ContainSubstring("live session root never asked for the recorded token count of turn 1 step 0 (anthropic-messages, digest aa, failed with HTTP 503 SERVER)")))
		Expect(err.Error()).NotTo(ContainSubstring("0 tokens"))
	})
})
