package fakellm_test

import (
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
