package wire_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"time"

	rs "github.com/agentsnap/agentsnap/llm/responses"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// researchSchema is the research tool's parameters as the JavaScript SDKs
// write a zod object's JSON Schema.
const researchSchema = `{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`

// aiSDKResponses is a request of the Vercel AI SDK's OpenAI provider
// (@ai-sdk/openai 4.0.118, the provider's default: the Responses API), as
// it sends it: every function tool with strict, false unless asked for.
const aiSDKResponses = `{"model":"gpt-4.1-mini","input":[{"role":"system","content":"You run the release desk."},` +
	`{"role":"user","content":[{"type":"input_text","text":"What shipped in v2.4?"}]}],` +
	`"tools":[{"type":"function","name":"research","description":"Ask a researcher about one release; it reads the release notes.","parameters":` + researchSchema + `,"strict":false}],` +
	`"tool_choice":"auto","stream":true}`

// agentsResponses is a request of the OpenAI Agents SDK for JavaScript
// (@openai/agents-openai, its default API), as it sends it: every function
// tool with strict, true as tool() makes it unless told otherwise.
const agentsResponses = `{"model":"gpt-4.1-mini","instructions":"You run the release desk.",` +
	`"input":[{"type":"message","role":"user","content":"What shipped in v2.4?"}],"include":[],` +
	`"tools":[{"type":"function","name":"research","description":"Ask a researcher about one release.","parameters":` + researchSchema + `,"strict":true}],` +
	`"stream":true}`

var _ = Describe("the JavaScript SDKs' Responses tools, through the wire layer", func() {
	DescribeTable("reach the live model as the agent sent them, strict and all, and a change to one is drift",
		func(ctx SpecContext, body, strict, lax string) {
			model := &respModel{}
			srv := httptest.NewServer(model)
			DeferCleanup(srv.Close)
			drv, err := rs.New(rs.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
			Expect(err).NotTo(HaveOccurred())
			sent := sending("/v1/responses", body)
			dir := recordSent(ctx, drv, srv.URL, "gpt-4.1-mini", sent)

			var want struct{ Tools json.RawMessage }
			Expect(json.Unmarshal([]byte(body), &want)).To(Succeed())
			reqs := model.requests()
			Expect(reqs).To(HaveLen(1))
			Expect(string(reqs[0]["tools"])).To(MatchJSON(want.Tools), "the tools as sent")

			expectSettingDrift(ctx, dir, sent, sending("/v1/responses", strings.Replace(body, strict, lax, 1)), "tools")
		},
		Entry("the Vercel AI SDK", NodeTimeout(time.Minute), aiSDKResponses, `"strict":false`, `"strict":true`),
		Entry("the OpenAI Agents SDK", NodeTimeout(time.Minute), agentsResponses, `"strict":true`, `"strict":false`),
		Entry("the Vercel AI SDK, with its provider tool openai.tools.webSearch", NodeTimeout(time.Minute),
			strings.Replace(aiSDKResponses, `"strict":false}]`, `"strict":false},{"type":"web_search","search_context_size":"medium"}]`, 1),
			`"search_context_size":"medium"`, `"search_context_size":"high"`),
	)
})
