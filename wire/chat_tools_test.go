package wire_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"time"

	llmopenai "github.com/agentsnap/agentsnap/llm/openai"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// agentsChat is a request of the OpenAI Agents SDK for JavaScript
// (@openai/agents-openai, setOpenAIAPI('chat_completions')), as it sends
// it: every function tool strict, as tool() makes it unless told
// otherwise.
const agentsChat = `{"model":"gpt-4.1-mini","messages":[{"content":"You run the release desk.","role":"system"},` +
	`{"role":"user","content":"What shipped in v2.4?"}],` +
	`"tools":[{"type":"function","function":{"name":"research","description":"Ask a researcher about one release.",` +
	`"parameters":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"},` +
	`"strict":true}}],"stream":true,"stream_options":{"include_usage":true}}`

var _ = Describe("the Agents SDK's strict Chat Completions tools, through the wire layer", func() {
	It("reach the live model as the agent sent them, and a change to one is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &chatModel{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		drv, err := llmopenai.New(llmopenai.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		sent := sending("/v1/chat/completions", agentsChat)
		dir := recordSent(ctx, drv, srv.URL, "gpt-4.1-mini", sent)

		var want struct{ Tools any }
		Expect(json.Unmarshal([]byte(agentsChat), &want)).To(Succeed())
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["tools"]).To(Equal(want.Tools), "strict, as sent")
		model.mu.Unlock()

		lax := sending("/v1/chat/completions", strings.Replace(agentsChat, `"strict":true`, `"strict":false`, 1))
		expectSettingDrift(ctx, dir, sent, lax, "tools")
	})
})
