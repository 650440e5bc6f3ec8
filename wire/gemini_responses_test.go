package wire_test

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/llm/gemini"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// aiSDKLookup is the first request of the Vercel AI SDK's Google provider
// (@ai-sdk/google 4.0.121) for a streamText call with one tool, as it
// sends it; aiSDKLookupResult the next, which sends the call the model
// made and its result back, the response {"name", "content"} as the
// provider writes every tool result.
const (
	aiSDKLookupHead = `{"generationConfig":{},"contents":[{"role":"user","parts":[{"text":"Look up the release."}]}`
	aiSDKLookupTail = `],"systemInstruction":{"parts":[{"text":"You look releases up."}]},` +
		`"tools":[{"functionDeclarations":[{"name":"lookup","description":"Look a fact up by its key.",` +
		`"parametersJsonSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}}]}],` +
		`"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`
	aiSDKLookup       = aiSDKLookupHead + aiSDKLookupTail
	aiSDKLookupResult = aiSDKLookupHead +
		`,{"role":"model","parts":[{"functionCall":{"id":"call_1_1_0","name":"lookup","args":{"key":"release"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"call_1_1_0","name":"lookup","response":{"name":"lookup","content":"v2.4.1 (March)"}}}]}` +
		aiSDKLookupTail
)

var _ = Describe("the Vercel AI SDK's Gemini tool results, through the wire layer", func() {
	It("reach the live model as the agent sent them, are recorded as their text as before, and a replay with another one fails", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &geminiModelServer{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		sent := sending(geminiPath, aiSDKLookup, aiSDKLookupResult)
		dir := recordSent(ctx, drv, srv.URL, "gemini-2.5-flash", sent)

		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(2))
		contents := model.bodies[1]["contents"].([]any)
		parts := contents[len(contents)-1].(map[string]any)["parts"].([]any)
		model.mu.Unlock()
		Expect(parts).To(HaveLen(1))
		fr := parts[0].(map[string]any)["functionResponse"].(map[string]any)
		response, err := json.Marshal(fr["response"])
		Expect(err).NotTo(HaveOccurred())
		Expect(response).To(MatchJSON(`{"name":"lookup","content":"v2.4.1 (March)"}`), "the object the agent sent")

		Expect(string(mustRead(filepath.Join(dir, "session.jsonl")))).To(ContainSubstring(
			`"toolCallId":"call_1_1_0","name":"lookup","content":[{"type":"text","text":"{\"content\":\"v2.4.1 (March)\",\"name\":\"lookup\"}"}]`),
			"recorded as before: the response as canonical JSON")

		Expect(mediaReplay(ctx, dir, sent)).To(harness.MatchRecording())
		changed := sending(geminiPath, aiSDKLookup, strings.Replace(aiSDKLookupResult, "(March)", "(April)", 1))
		o := mediaReplay(ctx, dir, changed)
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring(`lookup call call_1_1_0): data.message.content[0].content[0].text: golden "{\"content\":\"v2.4.1 (March)\",\"name\":\"lookup\"}", replay "{\"content\":\"v2.4.1 (April)\",\"name\":\"lookup\"}"`))
	})
})
