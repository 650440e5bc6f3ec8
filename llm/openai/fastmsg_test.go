package openai_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
)

var _ = Describe("the hand decoder of a request's message", func() {
	read := func(s string) (openai.Message, bool) {
		var m openai.Message
		ok := openai.FastMessage([]byte(s), &m)
		return m, ok
	}

	DescribeTable("reads the usual shapes as encoding/json does",
		func(s string) {
			got, ok := read(s)
			Expect(ok).To(BeTrue(), "the hand decoder leaves %s to encoding/json", s)
			var want openai.Message
			Expect(json.Unmarshal([]byte(s), &want)).To(Succeed())
			Expect(got).To(Equal(want))
		},
		Entry("a user message", `{"role":"user","content":"hi"}`),
		Entry("an assistant message calling tools", `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"k\":1}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}`),
		Entry("a tool result", `{"role":"tool","tool_call_id":"c1","content":"v"}`),
		Entry("reasoning and an empty list of calls", `{"role":"assistant","content":"a","reasoning_content":"r","tool_calls":[]}`),
		Entry("escapes and space", ` { "role" : "system" , "content" : "s\u00e9\n" } `),
		Entry("null members", `{"role":"assistant","tool_calls":null,"content":null,"tool_call_id":null}`),
		Entry("a null function", `{"role":"assistant","tool_calls":[{"id":"a","function":null}]}`),
	)

	It("reads every member of a tool call", func() {
		m, ok := read(`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}],"reasoning_content":"r","tool_call_id":"t"}`)
		Expect(ok).To(BeTrue())
		Expect(m).To(Equal(openai.Message{Role: "assistant", ReasoningContent: "r", ToolCallID: "t", ToolCalls: []openai.ToolCall{
			{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}}))
	})

	DescribeTable("leaves every other shape to encoding/json",
		func(s string) {
			_, ok := read(s)
			Expect(ok).To(BeFalse())
		},
		Entry("a name in other case", `{"Role":"user","content":"hi"}`),
		Entry("an escaped name", `{"r\u006fle":"user"}`),
		Entry("a repeated member", `{"role":"user","role":"tool"}`),
		Entry("a repeated member of a call", `{"tool_calls":[{"id":"a","id":"b"}]}`),
		Entry("content parts", `{"role":"user","content":[{"type":"text","text":"x"}]}`),
		Entry("an unknown member", `{"role":"user","name":"n"}`),
		Entry("a number for a string", `{"role":1}`),
		Entry("a null call", `{"tool_calls":[null]}`),
		Entry("a trailing comma", `{"role":"user",}`),
		Entry("text after the object", `{"role":"user"} x`),
		Entry("not an object", `null`),
		Entry("a cut object", `{"role":"user"`),
	)
})
