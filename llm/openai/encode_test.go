package openai_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a request sent to a live model", func() {
	It("sends a user message that carries only tool results (a log in Anthropic's shape) as tool messages, without an empty user message after them", func() {
		req := &llm.Request{Messages: []session.Message{
			{Role: session.RoleUser, Content: []session.Part{session.TextPart("hi")}},
			{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"a"}`}}},
			{Role: session.RoleUser, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "call_1", Name: "lookup", Content: []session.Part{session.TextPart("A")}}}},
		}}
		body, err := openai.Chat{}.Encode(req, "gpt-x")
		Expect(err).NotTo(HaveOccurred())
		var sent struct {
			Messages []map[string]any `json:"messages"`
		}
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		var roles []any
		for _, m := range sent.Messages {
			roles = append(roles, m["role"])
		}
		Expect(roles).To(Equal([]any{"user", "assistant", "tool"}), string(body))
		Expect(sent.Messages[2]).To(HaveKeyWithValue("tool_call_id", "call_1"))
		Expect(sent.Messages[2]).To(HaveKeyWithValue("content", "A"))
	})
})
