package responses_test

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// conversation is a turn with reasoning, a tool call and its result, as
// the log holds it after a live recording.
func conversation() []session.Message {
	return []session.Message{
		{Role: session.RoleUser, Content: []session.Part{session.TextPart("Which release?")}},
		{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartReasoning, Text: "Look it up.", Meta: json.RawMessage(`{"openai-responses":{"id":"rs_1","encrypted_content":"RU5D"}}`)},
			{Type: session.PartReasoning, Text: "Not kept.", Meta: json.RawMessage(`{"openai-responses":{"id":"rs_2"}}`)},
			{Type: session.PartText, Text: "Checking.", Meta: json.RawMessage(`{"openai-responses":{"id":"msg_1","phase":"commentary"}}`)},
			{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`, Meta: json.RawMessage(`{"openai-responses":{"id":"fc_1"}}`)},
		}},
		{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "call_1", Name: "lookup", Content: []session.Part{session.TextPart("v2.4.1")}}}},
	}
}

var lookup = llm.ToolSpec{Name: "lookup", Description: "Look up a fact.", Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)}

var _ = Describe("the request a live call sends", func() {
	var m *model
	BeforeEach(func() {
		m = newModel(events(created(), completed("null")))
	})

	It("posts the whole conversation to {base}/responses with the key as a bearer token, store false and no chain: output items without their ids, reasoning only with its encrypted content", func(ctx SpecContext) {
		send(ctx, newDriver(m), &llm.Request{Session: llm.SessionRef{ID: "root"}, System: "Be brief.", Messages: conversation(), Tools: []llm.ToolSpec{lookup}})
		r := m.last()
		Expect(r.path).To(Equal("/v1/responses"))
		Expect(r.header.Get("Authorization")).To(Equal("Bearer " + testKey))
		Expect(r.header.Get("Accept")).To(Equal("text/event-stream"))
		Expect(r.body).To(HaveKeyWithValue("model", json.RawMessage(`"gpt-test"`)))
		Expect(r.body).To(HaveKeyWithValue("instructions", json.RawMessage(`"Be brief."`)))
		Expect(r.body).To(HaveKeyWithValue("stream", json.RawMessage(`true`)))
		Expect(r.body).To(HaveKeyWithValue("store", json.RawMessage(`false`)))
		Expect(r.body).NotTo(HaveKey("previous_response_id"))
		Expect(compact(r.body["input"])).To(MatchJSON(`[
			{"type":"message","role":"user","content":"Which release?"},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Look it up."}],"encrypted_content":"RU5D"},
			{"type":"message","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"Checking."}]},
			{"type":"function_call","call_id":"call_1","name":"lookup","arguments":"{\"key\":\"release\"}"},
			{"type":"function_call_output","call_id":"call_1","output":"v2.4.1"}
		]`))
		Expect(compact(r.body["tools"])).To(MatchJSON(`[{"type":"function","name":"lookup","description":"Look up a fact.","parameters":{"type":"object","properties":{"key":{"type":"string"}}},"strict":false}]`),
			"a runtime's own tools were not written for strict mode")
	})

	It("sends the settings of a call made in this API as they are, its tools as sent when they are a setting", func(ctx SpecContext) {
		send(ctx, newDriver(m), &llm.Request{Session: llm.SessionRef{ID: "root"}, Messages: conversation()[:1], Tools: []llm.ToolSpec{lookup}, API: responses.API,
			Settings: json.RawMessage(`{"include":["reasoning.encrypted_content"],"reasoning":{"effort":"low"},"temperature":0.2,"tools":[{"type":"function","name":"lookup","parameters":{},"strict":true},{"type":"web_search"}]}`)})
		r := m.last()
		Expect(r.body).To(HaveKeyWithValue("temperature", json.RawMessage(`0.2`)))
		Expect(compact(r.body["include"])).To(Equal(`["reasoning.encrypted_content"]`))
		Expect(compact(r.body["reasoning"])).To(Equal(`{"effort":"low"}`))
		Expect(compact(r.body["tools"])).To(Equal(`[{"type":"function","name":"lookup","parameters":{},"strict":true},{"type":"web_search"}]`))
		Expect(r.body).To(HaveKeyWithValue("store", json.RawMessage(`false`)))

		send(ctx, newDriver(m), &llm.Request{Session: llm.SessionRef{ID: "root"}, Messages: conversation()[:1], Tools: []llm.ToolSpec{lookup}, API: responses.API,
			Settings: json.RawMessage(`{"temperature":0.2}`)})
		Expect(compact(m.last().body["tools"])).To(Equal(`[{"type":"function","name":"lookup","description":"Look up a fact.","parameters":{"type":"object","properties":{"key":{"type":"string"}}}}]`),
			"no strict member: the agent sent none")
	})

	DescribeTable("sends the settings of a call decoded from another API that mean the same here, and no other",
		func(api, set, want string) {
			send(bg(), newDriver(m), &llm.Request{Session: llm.SessionRef{ID: "root"}, Messages: conversation()[:1], API: api, Settings: json.RawMessage(set)})
			got := map[string]json.RawMessage{}
			for k, v := range m.last().body {
				switch k {
				case "model", "input", "stream", "store":
				default:
					got[k] = v
				}
			}
			b, _ := json.Marshal(got)
			Expect(string(b)).To(MatchJSON(want))
		},
		Entry("Chat Completions", "openai-chat",
			`{"frequency_penalty":1,"max_completion_tokens":64,"parallel_tool_calls":false,"reasoning_effort":"high","response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object"},"strict":true}},"seed":7,"stop":["x"],"temperature":0.5,"tool_choice":{"type":"function","function":{"name":"lookup"}},"top_p":0.9,"user":"u1"}`,
			`{"max_output_tokens":64,"parallel_tool_calls":false,"reasoning":{"effort":"high"},"text":{"format":{"type":"json_schema","name":"a","schema":{"type":"object"},"strict":true}},"temperature":0.5,"tool_choice":{"type":"function","name":"lookup"},"top_p":0.9,"user":"u1"}`),
		Entry("Anthropic Messages", "anthropic-messages",
			`{"max_tokens":100,"stop_sequences":["x"],"temperature":0.1,"tool_choice":{"type":"any"},"top_k":3}`,
			`{"max_output_tokens":100,"temperature":0.1,"tool_choice":"required"}`),
		Entry("Gemini", "gemini",
			`{"generationConfig":{"maxOutputTokens":80,"temperature":0.3,"topK":2,"topP":0.8},"safetySettings":[]}`,
			`{"max_output_tokens":80,"temperature":0.3,"top_p":0.8}`),
	)

	It("refuses a tool whose parameters are not JSON, before anything is sent", func(ctx SpecContext) {
		_, err := newDriver(m).Stream(ctx, &llm.Request{Session: llm.SessionRef{ID: "root"}, Tools: []llm.ToolSpec{{Name: "bad", Parameters: json.RawMessage(`{`)}}})
		Expect(errors.Is(err, live.ErrBadRequest)).To(BeTrue())
		Expect(err).To(MatchError(ContainSubstring(`tool "bad": parameters are not valid JSON`)))
	})
})

var _ = Describe("the live driver's credentials", func() {
	It("names the bearer token it sends, so a recording never holds it", func() {
		d, err := responses.New(responses.Config{BaseURL: "https://h/v1", APIKey: "sk-bearer-0123", Header: http.Header{"Openai-Organization": {"org-0123456789"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Credentials()).To(HaveKeyWithValue("the bearer token in the Authorization header", "sk-bearer-0123"))
		Expect(d.Credentials()).To(HaveKeyWithValue("the Authorization header", "Bearer sk-bearer-0123"))
	})

	It("reads its key from AGENTSNAP_API_KEY, else OPENAI_API_KEY", func() {
		env := map[string]string{"OPENAI_API_KEY": " sk-openai ", "DEEPSEEK_API_KEY": "sk-deepseek"}
		key, from := responses.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"sk-openai", "OPENAI_API_KEY"}))
		env["AGENTSNAP_API_KEY"] = "sk-agentsnap"
		key, from = responses.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"sk-agentsnap", "AGENTSNAP_API_KEY"}))
	})

	It("says to check the key after a 401, never echoing it", func(ctx SpecContext) {
		m := newModel(func(w http.ResponseWriter, _ int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + testKey + `","type":"invalid_request_error","code":"invalid_api_key"}}`))
		})
		chunks := send(ctx, newDriver(m), &llm.Request{Session: llm.SessionRef{ID: "root"}, Messages: conversation()[:1]})
		Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{
			Code: "AUTH", Status: 401, Message: "openai-responses: HTTP 401 Unauthorized: Incorrect API key provided: [REDACTED]; check the API key"}}))
	})
})
