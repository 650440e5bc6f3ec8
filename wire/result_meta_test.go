package wire_test

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"
)

// twoLookups has the root call lookup twice, one call an answer, then
// answer: its third request sends the first result back a second time.
const twoLookups = `{"sessions":{"root":[` +
	`{"toolCalls":[{"id":"call_a","name":"lookup","arguments":{"key":"release"}}]},` +
	`{"toolCalls":[{"id":"call_b","name":"lookup","arguments":{"key":"owner"}}]},` +
	`{"text":"v2.4.1, owned by team-atlas."}]}}`

// resendFirst has the genai agent answer its first call with willContinue
// true and, when change is set, turn that first response's willContinue
// to false as it answers the second: the agent keeps the response in its
// history, so its next request sends the earlier result with another
// willContinue.
func resendFirst(change bool) func(*genaiAgent) {
	return func(a *genaiAgent) {
		var first *genai.FunctionResponse // per run: the runtime applies this to each agent it makes
		a.Respond = func(c *genai.FunctionCall, result string) *genai.FunctionResponse {
			fr := &genai.FunctionResponse{ID: c.ID, Name: c.Name, Response: map[string]any{"output": result}, WillContinue: genai.Ptr(true)}
			if first == nil {
				first = fr
			} else if change {
				first.WillContinue = genai.Ptr(false)
			}
			return fr
		}
	}
}

var _ = Describe("an earlier functionResponse's willContinue sent again by the genai SDK", func() {
	It("changed, is a rewritten history: a history/replace holds the result as sent, and the recording replays", func() {
		dir := newFixture("custom/meta", oneTurn, twoLookups)
		rt := genaiRuntime(resendFirst(true))
		recordGenai(dir, rt)
		log := string(mustRead(filepath.Join(dir, "session.jsonl")))
		Expect(log).To(MatchRegexp(`"type":"history/replace","seq":\d+,"time":\d+,"data":\{"turn":1,"keep":2,"messages":\[\{"role":"tool","content":\[\{"type":"tool-result","toolCallId":"call_a","name":"lookup","content":\[\{"type":"text","text":"v2.4.1"\}\],"isError":false,"meta":\{"gemini":\{"willContinue":false\}\}\}\]\},`))
		Expect(replayGenai(dir, rt)).To(harness.MatchRecording())
	})

	It("unchanged, is the log's conversation: no history/replace", func() {
		dir := newFixture("custom/meta", oneTurn, twoLookups)
		recordGenai(dir, genaiRuntime(resendFirst(false)))
		log := string(mustRead(filepath.Join(dir, "session.jsonl")))
		Expect(log).To(ContainSubstring(`"meta":{"gemini":{"willContinue":true}}`))
		Expect(log).NotTo(ContainSubstring("history/replace"))
	})
})
