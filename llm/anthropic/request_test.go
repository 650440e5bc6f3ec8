package anthropic_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func sig(s string) json.RawMessage {
	return anthropic.Meta{Signature: s}.JSON()
}

func toolResult(id, text string, isError bool) session.Message {
	return session.Message{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: id, Name: "lookup",
		Content: []session.Part{session.TextPart(text)}, IsError: isError}}}
}

func user(text string) session.Message {
	return session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}}
}

// conversation is a tool-using turn with thinking, as the wire layer
// decodes it from an agent: the results of one answer and a text after
// them, as three messages.
var conversation = []session.Message{
	user("Release <and> nightly?"),
	{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartReasoning, Text: "Two lookups.", Meta: sig("c2lnLTE=")},
		{Type: session.PartReasoning, Meta: anthropic.Meta{Data: "cmVkYWN0ZWQ="}.JSON()},
		{Type: session.PartReasoning, Text: "unsigned, from another API"},
		session.TextPart("Looking."),
		{Type: session.PartToolCall, ID: "toolu_l", Name: "lookup", Arguments: `{"key": "release"}`},
		{Type: session.PartToolCall, ID: "toolu_n", Name: "lookup", Arguments: ``},
	}},
	toolResult("toolu_l", "v2.4.1", false),
	toolResult("toolu_n", "no fact nightly", true),
	user("Be brief."),
}

func encode(req *llm.Request) string {
	GinkgoHelper()
	b, err := anthropic.Messages{}.Encode(req, "claude-sonnet-4-5")
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Valid(b)).To(BeTrue(), string(b))
	return string(b)
}

var _ = Describe("encoding a request", func() {
	It("sends the system prompt, the tools and the conversation: results of one answer in one user message, results first, thinking back as signed", func() {
		req := &llm.Request{System: "You are terse.", Messages: conversation, Tools: []llm.ToolSpec{
			{Name: "lookup", Description: "Look up a fact.", Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)},
			{Name: "now"},
		}}
		Expect(encode(req)).To(Equal(`{"model":"claude-sonnet-4-5","max_tokens":4096,"system":"You are terse.","messages":[` +
			`{"role":"user","content":"Release <and> nightly?"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"Two lookups.","signature":"c2lnLTE="},{"type":"redacted_thinking","data":"cmVkYWN0ZWQ="},` +
			`{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_l","name":"lookup","input":{"key":"release"}},{"type":"tool_use","id":"toolu_n","name":"lookup","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_l","content":"v2.4.1"},{"type":"tool_result","tool_use_id":"toolu_n","content":"no fact nightly","is_error":true},` +
			`{"type":"text","text":"Be brief."}]}],` +
			`"tools":[{"name":"lookup","description":"Look up a fact.","input_schema":{"type":"object","properties":{"key":{"type":"string"}}}},` +
			`{"name":"now","input_schema":{"type":"object","properties":{}}}],"stream":true}`))
	})

	It("sends the settings of a request decoded from this API as they are, max_tokens theirs", func() {
		req := userRequest("hi")
		req.API = anthropic.API
		req.Settings = json.RawMessage(`{"max_tokens":1024,"metadata":{"user_id":"u-1"},"stop_sequences":["END"],"thinking":{"budget_tokens":2000,"type":"enabled"},"tool_choice":{"type":"auto"}}`)
		Expect(encode(req)).To(Equal(`{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}],"stream":true,` +
			`"metadata":{"user_id":"u-1"},"stop_sequences":["END"],"thinking":{"budget_tokens":2000,"type":"enabled"},"tool_choice":{"type":"auto"}}`))
	})

	It("sends another API's request with the default max_tokens and none of its settings", func() {
		req := userRequest("hi")
		req.API, req.Settings = "openai-chat", json.RawMessage(`{"max_tokens":7,"temperature":0.2}`)
		Expect(encode(req)).To(Equal(`{"model":"claude-sonnet-4-5","max_tokens":4096,"messages":[{"role":"user","content":"hi"}],"stream":true}`))
		b, err := anthropic.Messages{MaxTokens: 512}.Encode(userRequest("hi"), "m")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"max_tokens":512`))
	})

	It("refuses a tool whose parameters are not JSON, before anything is sent", func(ctx SpecContext) {
		p := newProvider(streaming(msgStart, msgStop))
		req := userRequest("hi")
		req.Tools = []llm.ToolSpec{{Name: "bad", Parameters: json.RawMessage(`{nope`)}}
		_, err := newDriver(p).Stream(ctx, req)
		Expect(err).To(MatchError(live.ErrBadRequest))
		Expect(err).To(MatchError(ContainSubstring(`tool "bad": parameters are not valid JSON`)))
		Expect(p.Requests()).To(BeEmpty())
	})
})
