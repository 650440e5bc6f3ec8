package anthropic_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// agentRequest is a request as anthropic-sdk-go sends one after a tool
// call: system blocks, the answer's thinking and tool_use blocks, and one
// user message with both results and a text after them.
const agentRequest = `{
  "max_tokens": 1024,
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "Release and nightly?"}]},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "Two lookups.", "signature": "c2lnLTE="},
      {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
      {"type": "text", "text": "Looking."},
      {"type": "tool_use", "id": "toolu_l", "name": "lookup", "input": {"key": "release"}},
      {"type": "tool_use", "id": "toolu_n", "name": "lookup", "input": {"key": "nightly"}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_l", "content": [{"type": "text", "text": "v2.4.1"}], "is_error": false},
      {"type": "tool_result", "tool_use_id": "toolu_n", "content": "no fact nightly", "is_error": true},
      {"type": "text", "text": "Be brief."}
    ]}
  ],
  "model": "claude-sonnet-4-5",
  "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "Answer in English."}],
  "thinking": {"type": "enabled", "budget_tokens": 2000},
  "tools": [{"name": "lookup", "description": "Look up a fact.", "input_schema": {"type": "object", "properties": {"key": {"type": "string"}}}}],
  "stream": true
}`

var _ = Describe("reading an agent's request", func() {
	It("takes each tool_result for a tool message of its own, named after its call, is_error kept, and the text after them for a user message", func() {
		call, err := anthropic.DecodeRequest([]byte(agentRequest))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Model).To(Equal("claude-sonnet-4-5"))
		Expect(call.Stream).To(BeTrue())
		Expect(call.System).To(Equal("You are terse.\n\nAnswer in English."))
		Expect(call.Tools).To(Equal([]llm.ToolSpec{{Name: "lookup", Description: "Look up a fact.",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"key": {"type": "string"}}}`)}}))
		Expect(call.Messages).To(Equal([]session.Message{
			user("Release and nightly?"),
			{Role: session.RoleAssistant, Content: []session.Part{
				{Type: session.PartReasoning, Text: "Two lookups.", Meta: json.RawMessage(`{"anthropic-messages":{"signature":"c2lnLTE="}}`)},
				{Type: session.PartReasoning, Meta: json.RawMessage(`{"anthropic-messages":{"data":"cmVkYWN0ZWQ="}}`)},
				session.TextPart("Looking."),
				{Type: session.PartToolCall, ID: "toolu_l", Name: "lookup", Arguments: `{"key":"release"}`},
				{Type: session.PartToolCall, ID: "toolu_n", Name: "lookup", Arguments: `{"key":"nightly"}`},
			}},
			toolResult("toolu_l", "v2.4.1", false),
			toolResult("toolu_n", "no fact nightly", true),
			user("Be brief."),
		}))
		var keys []string
		for k := range call.Members {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		Expect(keys).To(Equal([]string{"max_tokens", "messages", "model", "stream", "system", "thinking", "tools"}))
	})

	It("goes back to a live model as the agent sent it: the same blocks, in one user message, signatures included", func() {
		call, err := anthropic.DecodeRequest([]byte(agentRequest))
		Expect(err).NotTo(HaveOccurred())
		var sent struct{ Messages json.RawMessage }
		Expect(json.Unmarshal([]byte(agentRequest), &sent)).To(Succeed())
		msgs, err := anthropic.EncodeMessages(call.Messages)
		Expect(err).NotTo(HaveOccurred())
		back, err := json.Marshal(msgs)
		Expect(err).NotTo(HaveOccurred())
		// The SDK sends content as blocks and is_error false; a string and
		// no member are the same to the API.
		Expect(string(back)).To(MatchJSON(strings.NewReplacer(
			`[{"type": "text", "text": "Release and nightly?"}]`, `"Release and nightly?"`,
			`[{"type": "text", "text": "v2.4.1"}], "is_error": false`, `"v2.4.1"`).Replace(string(sent.Messages))))
	})

	It("takes a plain string for a message's content and for the system prompt", func() {
		call, err := anthropic.DecodeRequest([]byte(`{"model":"m","system":"Be kind.","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.System).To(Equal("Be kind."))
		Expect(call.Messages).To(Equal([]session.Message{user("hi"), {Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hello")}}}))
	})

	It("refuses a block it does not record yet, a server tool's among them, rather than leave it out", func() {
		_, err := anthropic.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":""}},{"type":"text","text":"search"}]},` +
			`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}},` +
			`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}},{"type":"text","text":"Nothing."}]}]}`))
		Expect(err).To(MatchError(HavePrefix(`messages[1].content[0] (in an assistant message): a "server_tool_use" part: agentsnap does not record it yet`)))
	})

	DescribeTable("refuses what is not a Messages request, naming where",
		func(body, want string) {
			_, err := anthropic.DecodeRequest([]byte(body))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("not an object", `[1]`, "the body is not a JSON object"),
		Entry("null", `null`, "the body is not a JSON object: it is null"),
		Entry("a role of another API", `{"messages":[{"role":"user","content":"x"},{"role":"system","content":"x"}]}`,
			`messages[1].role: "system"; want user or assistant (the system prompt is the request's system member)`),
		Entry("a content neither string nor blocks", `{"messages":[{"role":"user","content":7}]}`, "messages[0]: want a string or an array of content blocks"),
		Entry("a tool_use without id", `{"messages":[{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","name":"f","input":{}}]}]}`,
			"messages[0].content[1]: a tool_use block needs an id, a name and an input object"),
		Entry("a tool_use input that is not an object", `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":[1]}]}]}`,
			"messages[0].content[0]: a tool_use block needs an id, a name and an input object (the input is not a JSON object)"),
		Entry("a tool_result without its call", `{"messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`,
			"messages[0].content[0]: a tool_result block needs its tool_use_id"),
		Entry("a system block that is not text", `{"system":[{"type":"image","source":{}}],"messages":[]}`, `system[0]: a "image" block; the system prompt holds text blocks only`),
		Entry("a tool without a name", `{"messages":[],"tools":[{"input_schema":{}}]}`, "tools[0]: a tool needs a name"),
	)
})

// serve writes chunks as a stream and returns the SSE text.
func serve(chunks []session.Chunk) string {
	GinkgoHelper()
	var b bytes.Buffer
	flushes := 0
	Expect(anthropic.ServeStream(&b, func() { flushes++ }, "msg_1", "claude-sonnet-4-5", slices.Values(chunks))).To(Succeed())
	Expect(flushes).To(Equal(strings.Count(b.String(), "\n\n")), "a flush per event")
	return b.String()
}

func chunk(c string) session.Chunk {
	GinkgoHelper()
	d, err := session.DecodeChunkData([]byte(`{"turn":1,"step":1,"attempt":1,"chunk":` + c + `}`))
	Expect(err).NotTo(HaveOccurred())
	return d.Chunk
}

var _ = Describe("serving a stream", func() {
	It("writes the API's named events, a whole message first, the stop_reason and usage in message_delta", func() {
		out := serve([]session.Chunk{
			chunk(`{"type":"block-start","index":0,"blockType":"text"}`),
			chunk(`{"type":"text-delta","index":0,"text":"Hi <there>"}`),
			chunk(`{"type":"block-end","index":0,"block":{"type":"text","text":"Hi <there>"}}`),
			chunk(`{"type":"usage","usage":{"inputTokens":30,"outputTokens":5,"cacheReadTokens":20}}`),
			chunk(`{"type":"finish","reason":{"kind":"stop"}}`),
		})
		Expect(out).To(Equal(sse(
			`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi <there>"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":20}}`,
			`{"type":"message_stop"}`,
		)))
	})

	It("starts a tool_use block once its id and name are known, with input {}, holding back what comes after it", func() {
		out := serve([]session.Chunk{
			chunk(`{"type":"block-start","index":0,"blockType":"tool-call"}`),
			chunk(`{"type":"tool-call-delta","index":0,"argumentsDelta":"{\"k\":"}`),
			chunk(`{"type":"block-start","index":1,"blockType":"text"}`),
			chunk(`{"type":"text-delta","index":1,"text":"x"}`),
			chunk(`{"type":"block-end","index":0,"block":{"type":"tool-call","id":"toolu_1","name":"f","arguments":"{\"k\":1}"}}`),
			chunk(`{"type":"block-end","index":1,"block":{"type":"text","text":"x"}}`),
			chunk(`{"type":"finish","reason":{"kind":"tool-calls"}}`),
		})
		Expect(out).To(ContainSubstring(sse(
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"k\":"}}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_stop","index":1}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
		)), "the block-end's rest of the arguments goes out as a delta")
	})

	It("hands back a thinking block's signature and a redacted_thinking block's data", func() {
		out := serve([]session.Chunk{
			chunk(`{"type":"block-start","index":0,"blockType":"reasoning"}`),
			chunk(`{"type":"reasoning-delta","index":0,"text":"Hmm."}`),
			chunk(`{"type":"block-end","index":0,"block":{"type":"reasoning","text":"Hmm.","meta":{"anthropic-messages":{"signature":"c2ln"}}}}`),
			chunk(`{"type":"block-start","index":1,"blockType":"reasoning"}`),
			chunk(`{"type":"block-end","index":1,"block":{"type":"reasoning","text":"","meta":{"anthropic-messages":{"data":"ZGF0YQ=="}}}}`),
			chunk(`{"type":"finish","reason":{"kind":"stop"}}`),
		})
		Expect(out).To(ContainSubstring(sse(
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"ZGF0YQ=="}}`,
			`{"type":"content_block_stop","index":1}`,
		)))
	})

	It("ends a failed call with an error event, and an aborted one with nothing more", func() {
		start := []session.Chunk{chunk(`{"type":"block-start","index":0,"blockType":"text"}`), chunk(`{"type":"text-delta","index":0,"text":"par"}`)}
		failed := serve(append(slices.Clone(start), chunk(`{"type":"finish","reason":{"kind":"error","failure":{"message":"upstream overloaded","code":"RATE_LIMIT"}}}`)))
		Expect(failed).To(HaveSuffix(sse(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}`,
			`{"type":"error","error":{"type":"rate_limit_error","message":"upstream overloaded"}}`)))
		aborted := serve(append(slices.Clone(start), chunk(`{"type":"finish","reason":{"kind":"aborted"}}`)))
		Expect(aborted).To(HaveSuffix(sse(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}`)))
	})

	It("gives the live decoder back the message it was given: text, signed thinking, redacted thinking, tool calls, usage, finish", func() {
		msg := session.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartReasoning, Text: "Let me think.", Meta: sig("c2lnLTE=")},
			{Type: session.PartReasoning, Meta: anthropic.Meta{Data: "cmVkYWN0ZWQ="}.JSON()},
			session.TextPart("Two calls: "),
			{Type: session.PartToolCall, ID: "toolu_a", Name: "lookup", Arguments: `{"key":"release"}`},
			{Type: session.PartToolCall, ID: "toolu_b", Name: "now", Arguments: `{}`},
		}}
		cacheRead := 3
		usage := &session.Usage{InputTokens: 40, OutputTokens: 12, CacheReadTokens: &cacheRead}
		chunks := decode(serve(streamWithMeta(msg, usage)))
		Expect(assemble(chunks)).To(Equal(msg))
		Expect(chunks[len(chunks)-2].Usage).To(Equal(usage))
		Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishToolCalls}))
	})
})

// streamWithMeta is msg as a live driver streams it: llm.StreamMessage,
// each block-end with its part's meta.
func streamWithMeta(msg session.Message, usage *session.Usage) []session.Chunk {
	chunks := llm.StreamMessage(msg, usage, "")
	for i, c := range chunks {
		if c.Type == session.ChunkBlockEnd {
			blk := *c.Block
			blk.Meta = msg.Content[c.Index].Meta
			chunks[i].Block = &blk
		}
	}
	return chunks
}

var _ = Describe("a whole answer", func() {
	It("is the API's message object, the stop_reason its finish's", func() {
		b, err := json.Marshal(anthropic.Whole("msg_1", "claude-sonnet-4-5", session.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartReasoning, Text: "Hmm.", Meta: sig("c2ln")},
			session.TextPart("Calling."),
			{Type: session.PartToolCall, ID: "toolu_1", Name: "f", Arguments: `{"k":1}`},
		}}, &session.Usage{InputTokens: 9, OutputTokens: 4}, session.FinishToolCalls))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(MatchJSON(`{"id":"msg_1","type":"message","role":"assistant","content":[
			{"type":"thinking","thinking":"Hmm.","signature":"c2ln"},{"type":"text","text":"Calling."},{"type":"tool_use","id":"toolu_1","name":"f","input":{"k":1}}],
			"model":"claude-sonnet-4-5","stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":4}}`))
	})

	It("has an id from the call's key, the same every run", func() {
		Expect(anthropic.MessageID("root/toolu_f:2:1:1")).To(Equal(anthropic.MessageID("root/toolu_f:2:1:1")))
		Expect(anthropic.MessageID("root/toolu_f:2:1:1")).NotTo(Equal(anthropic.MessageID("root/toolu_f:2:1:2")))
		Expect(anthropic.MessageID("root:1:1:1")).To(HavePrefix("msg_"))
	})
})
