package gemini_test

import (
	"encoding/json"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

func endpoint(base, model string) string {
	u, err := url.Parse(base)
	Expect(err).NotTo(HaveOccurred())
	return gemini.GenerateContent{}.Endpoint(u, model)
}

var _ = Describe("the request", func() {
	DescribeTable("goes to the model's streamGenerateContent under the base URL, with v1beta unless the base names a version",
		func(base, model, want string) { Expect(endpoint(base, model)).To(Equal(want)) },
		Entry("the origin", "https://generativelanguage.googleapis.com", "gemini-2.5-flash",
			"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
		Entry("a version", "https://generativelanguage.googleapis.com/v1", "gemini-2.5-flash",
			"https://generativelanguage.googleapis.com/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
		Entry("a proxy's path", "https://proxy.example/gemini", "m",
			"https://proxy.example/gemini/v1beta/models/m:streamGenerateContent?alt=sse"),
		Entry("a tuned model", "http://127.0.0.1:8080", "tunedModels/mine",
			"http://127.0.0.1:8080/v1beta/tunedModels/mine:streamGenerateContent?alt=sse"),
		Entry("a key in the query, kept as written, and alt replaced", "https://h/v1beta?key=AIza%2Bkey-0123&alt=json", "m",
			"https://h/v1beta/models/m:streamGenerateContent?key=AIza%2Bkey-0123&alt=sse"),
	)

	It("sends the key in x-goog-api-key, and the conversation as contents: thought parts, function calls with their signatures, results together in one user content", func(ctx SpecContext) {
		p := newProvider(streaming(event(`{"text":"ok"}`, "STOP", "")))
		req := &llm.Request{
			Session: llm.SessionRef{ID: "root"}, Turn: 2, Step: 2, Attempt: 1,
			System: "Be brief.",
			Tools:  []llm.ToolSpec{{Name: "lookup", Description: "Look up.", Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)}, {Name: "ping"}},
			Messages: []session.Message{
				{Role: session.RoleUser, Content: []session.Part{session.TextPart("Look both up.")}},
				{Role: session.RoleAssistant, Content: []session.Part{
					{Type: session.PartReasoning, Text: "Two lookups.", Meta: gemini.Meta("c2lnLTE=")},
					{Type: session.PartText, Text: "Checking."},
					{Type: session.PartToolCall, ID: "fc_1", Name: "lookup", Arguments: `{"key":"a"}`, Meta: gemini.Meta("c2lnLTI=")},
					{Type: session.PartToolCall, ID: "fc_2", Name: "lookup", Arguments: ``},
				}},
				{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "fc_1", Name: "lookup", Content: []session.Part{session.TextPart("A")}}}},
				{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "fc_2", Content: []session.Part{session.TextPart("no such key")}, IsError: true}}},
				{Role: session.RoleUser, Content: []session.Part{session.TextPart("And now?")}},
			},
		}
		Expect(last(collect(ctx, newDriver(p), req)).Kind).To(Equal(session.FinishStop))
		r := p.Requests()[0]
		Expect(r.URI).To(Equal("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"))
		Expect(r.Header.Get("X-Goog-Api-Key")).To(Equal(testKey))
		Expect(r.Header.Get("Authorization")).To(BeEmpty())
		Expect(r.Body).To(MatchJSON(`{
			"contents": [
				{"role": "user", "parts": [{"text": "Look both up."}]},
				{"role": "model", "parts": [
					{"text": "Two lookups.", "thought": true, "thoughtSignature": "c2lnLTE="},
					{"text": "Checking."},
					{"functionCall": {"id": "fc_1", "name": "lookup", "args": {"key": "a"}}, "thoughtSignature": "c2lnLTI="},
					{"functionCall": {"id": "fc_2", "name": "lookup", "args": {}}}
				]},
				{"role": "user", "parts": [
					{"functionResponse": {"id": "fc_1", "name": "lookup", "response": {"output": "A"}}},
					{"functionResponse": {"id": "fc_2", "name": "lookup", "response": {"error": "no such key"}}},
					{"text": "And now?"}
				]}
			],
			"systemInstruction": {"parts": [{"text": "Be brief."}]},
			"tools": [{"functionDeclarations": [
				{"name": "lookup", "description": "Look up.", "parametersJsonSchema": {"type": "object", "properties": {"key": {"type": "string"}}}},
				{"name": "ping"}
			]}]
		}`))
	})

	It("writes a conversation the server side reads back as it was: one schema, both sides", func(ctx SpecContext) {
		p := newProvider(streaming(event(`{"text":"ok"}`, "STOP", "")))
		msgs := []session.Message{
			{Role: session.RoleUser, Content: []session.Part{session.TextPart("Look both up.")}},
			{Role: session.RoleAssistant, Content: []session.Part{
				{Type: session.PartReasoning, Text: "Two lookups.", Meta: gemini.Meta("c2lnLTE=")},
				{Type: session.PartText, Text: "Checking."},
				{Type: session.PartToolCall, ID: "fc_1", Name: "lookup", Arguments: `{"key":"a"}`, Meta: gemini.Meta("c2lnLTI=")},
				{Type: session.PartToolCall, ID: "fc_2", Name: "lookup", Arguments: `{"key":"b"}`},
			}},
			{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "fc_1", Name: "lookup", Content: []session.Part{session.TextPart("A")}}}},
			{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "fc_2", Name: "lookup", Content: []session.Part{session.TextPart("none")}, IsError: true}}},
			{Role: session.RoleUser, Content: []session.Part{session.TextPart("And now?")}},
			{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Done.")}},
		}
		req := userRequest("")
		req.System, req.Messages = "Be brief.", msgs
		req.Tools = []llm.ToolSpec{{Name: "lookup", Description: "Look up.", Parameters: json.RawMessage(`{"properties":{"key":{"type":"string"}},"type":"object"}`)}}
		collect(ctx, newDriver(p), req)
		back, err := gemini.DecodeRequest(p.Requests()[0].Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(back.System).To(Equal(req.System))
		Expect(back.Messages).To(Equal(msgs))
		Expect(back.Tools).To(Equal(req.Tools))
		Expect(back.Settings).To(BeEmpty())
	})

	It("sends the settings of a call an agent made in this API as sent, and the tools they hold after the functions", func(ctx SpecContext) {
		p := newProvider(streaming(event(`{"text":"ok"}`, "STOP", "")))
		req := userRequest("hi")
		req.Tools = []llm.ToolSpec{{Name: "lookup", Parameters: json.RawMessage(`{"type":"object"}`)}}
		req.API, req.Settings = gemini.API, json.RawMessage(`{"generationConfig":{"temperature":0.2,"thinkingConfig":{"thinkingBudget":100}},"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}},"tools":[{"googleSearch":{}}]}`)
		collect(ctx, newDriver(p), req)
		Expect(p.Requests()[0].Body).To(MatchJSON(`{
			"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
			"tools": [{"functionDeclarations": [{"name": "lookup", "parametersJsonSchema": {"type": "object"}}]}, {"googleSearch": {}}],
			"generationConfig": {"temperature": 0.2, "thinkingConfig": {"thinkingBudget": 100}},
			"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
			"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}
		}`))
	})

	It("leaves out the settings of a call made in another API", func(ctx SpecContext) {
		p := newProvider(streaming(event(`{"text":"ok"}`, "STOP", "")))
		req := userRequest("hi")
		req.API, req.Settings = "openai-chat", json.RawMessage(`{"temperature":0.2}`)
		collect(ctx, newDriver(p), req)
		Expect(p.Requests()[0].Body).To(MatchJSON(`{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}`))
	})

	It("refuses to send a tool call whose arguments are not a JSON object, naming it", func(ctx SpecContext) {
		p := newProvider(streaming())
		req := userRequest("hi")
		req.Messages = append(req.Messages, session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: "c1", Name: "f", Arguments: `[1,2]`}}})
		_, err := newDriver(p).Stream(ctx, req)
		Expect(err).To(MatchError(live.ErrBadRequest))
		Expect(err.Error()).To(ContainSubstring(`message 2: the arguments of tool call c1 (f) are not a JSON object`))
		Expect(p.Requests()).To(BeEmpty())
	})
})
