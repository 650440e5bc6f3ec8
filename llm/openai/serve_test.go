package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// serve writes chunks as a stream and returns the SSE text.
func serve(chunks []session.Chunk) string {
	GinkgoHelper()
	var b bytes.Buffer
	flushes := 0
	Expect(openai.ServeStream(&b, func() { flushes++ }, "gpt-test", slices.Values(chunks))).To(Succeed())
	Expect(flushes).To(Equal(strings.Count(b.String(), "\n\n")), "a flush per event")
	return b.String()
}

// sse is the event stream of frames, each a data: event.
func sse(frames ...string) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString("data: " + f + "\n\n")
	}
	return b.String()
}

func intp(n int) *int { return &n }

// assistant is an assistant message of parts.
func assistant(parts ...session.Part) session.Message {
	return session.Message{Role: session.RoleAssistant, Content: parts}
}

func callPart(id, name, args string) session.Part {
	return session.Part{Type: session.PartToolCall, ID: id, Name: name, Arguments: args}
}

var _ = Describe("serving a stream", func() {
	It("writes a chat.completion.chunk per delta, the role on the first, then the finish_reason, the usage and [DONE], HTML-escaped", func() {
		out := serve(llm.StreamMessage(assistant(session.TextPart("Hi <there>"), callPart("call_1", "f", `{"k":1}`)),
			&session.Usage{InputTokens: 30, OutputTokens: 5, CacheReadTokens: intp(20)}, ""))
		Expect(out).To(Equal(sse(
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}`,
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"content":" \u003cthere\u003e"},"finish_reason":null}]}`,
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"k\":1}"}}]},"finish_reason":null}]}`,
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"","choices":[],"usage":{"completion_tokens":5,"prompt_tokens":30,"prompt_tokens_details":{"cached_tokens":20},"total_tokens":35}}`,
			`[DONE]`,
		)))
	})

	It("holds a tool call's fragments back until its id is known, and sends a call whose deltas named none whole at its block-end", func() {
		out := serve([]session.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall},
			{Type: session.ChunkToolCallDelta, Index: 0, Name: "lookup", ArgumentsDelta: `{"key":`},
			{Type: session.ChunkToolCallDelta, Index: 0, ArgumentsDelta: `"a"}`},
			{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockToolCall, ID: "call_0", Name: "lookup", Arguments: `{"key":"a"}`}},
			{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockToolCall},
			{Type: session.ChunkToolCallDelta, Index: 1, ArgumentsDelta: `{"a"`},
			{Type: session.ChunkToolCallDelta, Index: 1, ID: "call_1", Name: "now", ArgumentsDelta: `:1`},
			{Type: session.ChunkToolCallDelta, Index: 1, ArgumentsDelta: `}`},
			session.Finish(session.FinishToolCalls),
		})
		Expect(out).To(HavePrefix(sse(
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"a\"}"}}]},"finish_reason":null}]}`,
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"now","arguments":"{\"a\":1"}}]},"finish_reason":null}]}`,
			`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]},"finish_reason":null}]}`,
		)))
	})

	It("ends a failed call with an error frame, and an aborted one with nothing more", func() {
		start := []session.Chunk{{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockText}, {Type: session.ChunkTextDelta, Index: 0, Text: "par"}}
		failed := serve(append(slices.Clone(start), session.ErrorFinish("RATE_LIMIT", "slow <down>")))
		Expect(failed).To(HaveSuffix(sse(`{"error":{"code":"RATE_LIMIT","message":"slow \u003cdown\u003e","type":"agentsnap_replay_error"}}`)))
		Expect(failed).NotTo(ContainSubstring("[DONE]"))
		aborted := serve(append(slices.Clone(start), session.Finish(session.FinishAborted)))
		Expect(aborted).To(Equal(sse(`{"id":"chatcmpl-agentsnap","object":"chat.completion.chunk","created":0,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":"par"},"finish_reason":null}]}`)))
	})

	DescribeTable("gives the live decoder back the message it was given, its usage and its finish",
		func(msg session.Message, usage *session.Usage, finish string) {
			chunks := openai.DecodeBody(context.Background(), strings.NewReader(serve(llm.StreamMessage(msg, usage, finish))))
			Expect(openai.CheckProtocol(chunks)).To(Succeed(), strings.Join(jsonLines(chunks), "\n"))
			var a llm.Assembler
			for _, c := range chunks {
				a.Add(c)
			}
			Expect(a.Message()).To(Equal(msg))
			Expect(a.Usage()).To(Equal(usage))
			want := finish
			if want == "" {
				want = session.FinishStop
				if len(msg.ToolCalls()) > 0 {
					want = session.FinishToolCalls
				}
			}
			Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: want}))
		},
		Entry("reasoning, text, two tool calls, every usage member",
			assistant(session.Part{Type: session.PartReasoning, Text: "Two lookups, then <answer>."}, session.TextPart("Looking \"both\" up & more."),
				callPart("call_a", "lookup", `{"key":"release"}`), callPart("call_b", "now", `{}`)),
			&session.Usage{InputTokens: 40, OutputTokens: 12, CacheReadTokens: intp(3), ReasoningTokens: intp(7)}, ""),
		Entry("text only, no usage", assistant(session.TextPart("OK")), nil, ""),
		Entry("cut at max tokens", assistant(session.TextPart("a long answer that")), &session.Usage{InputTokens: 9, OutputTokens: 4}, session.FinishMaxTokens),
	)
})

var _ = Describe("a whole answer", func() {
	It("is a chat.completion, members in name order, content null beside tool calls", func() {
		b, err := json.Marshal(openai.Whole("gpt-test", assistant(session.Part{Type: session.PartReasoning, Text: "Hmm."}, callPart("call_1", "f", `{"k":1}`)),
			&session.Usage{InputTokens: 9, OutputTokens: 4, ReasoningTokens: intp(2)}, session.FinishToolCalls))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"content":null,"reasoning_content":"Hmm.","role":"assistant",` +
			`"tool_calls":[{"function":{"arguments":"{\"k\":1}","name":"f"},"id":"call_1","type":"function"}]}}],"created":0,"id":"chatcmpl-agentsnap",` +
			`"model":"gpt-test","object":"chat.completion","usage":{"completion_tokens":4,"completion_tokens_details":{"reasoning_tokens":2},"prompt_tokens":9,"total_tokens":13}}`))
	})

	It("says an empty answer as empty content", func() {
		b, err := json.Marshal(openai.Whole("m", assistant(), nil, session.FinishStop))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"message":{"content":"","role":"assistant"}`))
		Expect(string(b)).NotTo(ContainSubstring("usage"))
	})
})

// agentConversation is what an agent sends: a user question, an answer with
// reasoning, text and two calls, their results, a follow-up.
var agentConversation = []session.Message{
	{Role: session.RoleUser, Content: []session.Part{session.TextPart("Release and nightly?")}},
	assistant(session.Part{Type: session.PartReasoning, Text: "Two lookups."}, session.TextPart("Looking."),
		callPart("call_l", "lookup", `{"key":"release"}`), callPart("call_n", "lookup", `{"key":"nightly"}`)),
	{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "call_l", Name: "lookup", Content: []session.Part{session.TextPart("v2.4.1")}}}},
	{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "call_n", Name: "lookup", Content: []session.Part{session.TextPart("<none>")}}}},
	{Role: session.RoleUser, Content: []session.Part{session.TextPart("Be brief.")}},
}

var _ = Describe("reading an agent's request", func() {
	It("reads back what the live driver sends: the system prompt, the conversation, the tools", func() {
		tools := []llm.ToolSpec{{Name: "lookup", Description: "Look up a fact.", Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)}}
		body, err := openai.EncodeRequest(&llm.Request{System: "You are terse.", Messages: agentConversation, Tools: tools}, "gpt-test", true)
		Expect(err).NotTo(HaveOccurred())
		call, err := openai.DecodeRequest(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Model).To(Equal("gpt-test"))
		Expect(call.Stream).To(BeTrue())
		Expect(call.System).To(Equal("You are terse."))
		Expect(call.Messages).To(Equal(agentConversation))
		Expect(call.Tools).To(Equal(tools))
		Expect(mapKeys(call.Members)).To(Equal([]string{"model", "stream", "stream_options", "tools"}), "messages are Messages and System")
	})

	It("joins system and developer messages wherever they stand, keeps the text and images of content arrays and names results after their calls", func() {
		call, err := openai.DecodeRequest([]byte(`{"model":"m","temperature":0.2,"messages":[
			{"role":"developer","content":"Be kind."},
			{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},
			{"role":"system","content":"Be brief."},
			{"role":"tool","tool_call_id":"c1","content":"v"},
			{"role":"tool","tool_call_id":"c9","content":null}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.System).To(Equal("Be kind.\n\nBe brief."))
		Expect(call.Stream).To(BeFalse())
		Expect(call.Messages).To(Equal([]session.Message{
			{Role: session.RoleUser, Content: []session.Part{session.TextPart("a"),
				{Type: session.PartImage, Attachment: &session.Attachment{URL: "x"}}, session.TextPart("b")}},
			assistant(callPart("c1", "lookup", `{}`)),
			{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "c1", Name: "lookup", Content: []session.Part{session.TextPart("v")}}}},
			{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "c9", Content: []session.Part{session.TextPart("")}}}},
		}))
		Expect(string(call.Members["temperature"])).To(Equal("0.2"))
	})

	DescribeTable("refuses what is not a Chat Completions request, naming where",
		func(body, want string) {
			_, err := openai.DecodeRequest([]byte(body))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("not an object", `[1]`, "the body is an array: send a JSON object"),
		Entry("a role no API has", `{"messages":[{"role":"user","content":"x"},{"role":"wizard","content":"x"}]}`, `messages[1]: unknown role "wizard"`),
		Entry("a content neither string nor parts", `{"messages":[{"role":"user","content":7}]}`, "messages[0].content: want a string or an array of content parts"),
		Entry("a member of the wrong type", `{"messages":[{"role":"user","content":"x","tool_call_id":5}]}`, "messages[0].tool_call_id is the number 5: send a string"),
	)
})

func mapKeys(m map[string]json.RawMessage) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// failingWriter fails every write from its n-th on (1 for the first).
type failingWriter struct{ writes, n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes >= w.n {
		return 0, errors.New("connection reset")
	}
	return len(p), nil
}

var _ = Describe("serving a stream to a writer that fails", func() {
	DescribeTable("returns the write's error and reads no chunk after it",
		func(failAt, wantRead int) {
			chunks := llm.StreamMessage(assistant(session.TextPart("one two")), nil, "")
			read := 0
			seq := func(yield func(session.Chunk) bool) {
				for _, c := range chunks {
					read++
					if !yield(c) {
						return
					}
				}
			}
			w := &failingWriter{n: failAt}
			err := openai.ServeStream(w, func() {}, "m", seq)
			Expect(err).To(MatchError("connection reset"))
			Expect(w.writes).To(Equal(failAt), "no write after the failed one")
			Expect(read).To(Equal(wantRead))
		},
		// The chunks: block start, "one", " two", block end, finish.
		Entry("at a delta's frame", 1, 2),
		Entry("at the finish's frame", 3, 5),
	)
})
