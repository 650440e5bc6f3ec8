package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// chunk wraps a delta in the envelope OpenAI streams; finish is a JSON
// value (null or a quoted reason).
func chunk(delta, finish string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model",`+
		`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`, delta, finish)
}

// usageFrame is the final chunk include_usage asks for: no choices.
func usageFrame(usage string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model","choices":[],"usage":%s}`, usage)
}

const openAIUsage = `{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14,` +
	`"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0},` +
	`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`

// parallelCalls is text, then two tool calls whose argument fragments
// interleave, as OpenAI streams parallel calls.
var parallelCalls = []string{
	chunk(`{"role":"assistant","content":"","refusal":null}`, "null"),
	chunk(`{"content":"Checking both."}`, "null"),
	chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`, "null"),
	chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}`, "null"),
	chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":"}}]}`, "null"),
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`, "null"),
	chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]}`, "null"),
	chunk(`{}`, `"tool_calls"`),
	usageFrame(`{"prompt_tokens":40,"completion_tokens":25,"total_tokens":65}`),
}

var _ = Describe("streaming a response", func() {
	It("turns content deltas into a text block, then usage, then a stop finish", func(ctx SpecContext) {
		p := newProvider(streaming(
			chunk(`{"role":"assistant","content":"","refusal":null}`, "null"),
			chunk(`{"content":"Hel"}`, "null"),
			chunk(`{"content":"lo"}`, "null"),
			chunk(`{}`, `"stop"`),
			usageFrame(openAIUsage),
		))
		chunks := collect(ctx, newDriver(p), userRequest("hi"))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Hel"}`,
			`{"type":"text-delta","index":0,"text":"lo"}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Hello"}}`,
			`{"type":"usage","usage":{"inputTokens":12,"outputTokens":2,"cacheReadTokens":8,"reasoningTokens":0}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("puts DeepSeek's reasoning_content in a reasoning block before the text block", func(ctx SpecContext) {
		ds := func(delta string) string {
			return `{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","system_fingerprint":"fp_ds",` +
				`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":null}]}`
		}
		p := newProvider(streaming(
			ds(`{"role":"assistant","content":null,"reasoning_content":""}`),
			ds(`{"content":null,"reasoning_content":"Two plus"}`),
			ds(`{"content":null,"reasoning_content":" two."}`),
			ds(`{"content":"4","reasoning_content":null}`),
			`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop"}],`+
				`"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"completion_tokens_details":{"reasoning_tokens":5},`+
				`"prompt_cache_hit_tokens":16,"prompt_cache_miss_tokens":4}}`,
		))
		chunks := collect(ctx, newDriver(p), userRequest("2+2?"))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"reasoning"}`,
			`{"type":"reasoning-delta","index":0,"text":"Two plus"}`,
			`{"type":"reasoning-delta","index":0,"text":" two."}`,
			`{"type":"block-start","index":1,"blockType":"text"}`,
			`{"type":"text-delta","index":1,"text":"4"}`,
			`{"type":"block-end","index":0,"block":{"type":"reasoning","text":"Two plus two."}}`,
			`{"type":"block-end","index":1,"block":{"type":"text","text":"4"}}`,
			`{"type":"usage","usage":{"inputTokens":20,"outputTokens":9,"cacheReadTokens":16,"reasoningTokens":5}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("gives each parallel tool call its own block, keyed by the provider's index", func(ctx SpecContext) {
		p := newProvider(streaming(parallelCalls...))
		chunks := collect(ctx, newDriver(p), userRequest("weather and time in Paris"))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Checking both."}`,
			`{"type":"block-start","index":1,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":1,"id":"call_a","name":"get_weather","argumentsDelta":""}`,
			`{"type":"tool-call-delta","index":1,"argumentsDelta":"{\"city\":"}`,
			`{"type":"block-start","index":2,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":2,"id":"call_b","name":"get_time","argumentsDelta":""}`,
			`{"type":"tool-call-delta","index":2,"argumentsDelta":"{\"tz\":"}`,
			`{"type":"tool-call-delta","index":1,"argumentsDelta":"\"Paris\"}"}`,
			`{"type":"tool-call-delta","index":2,"argumentsDelta":"\"CET\"}"}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Checking both."}}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`,
			`{"type":"block-end","index":2,"block":{"type":"tool-call","id":"call_b","name":"get_time","arguments":"{\"tz\":\"CET\"}"}}`,
			`{"type":"usage","usage":{"inputTokens":40,"outputTokens":25}}`,
			`{"type":"finish","reason":{"kind":"tool-calls"}}`,
		}))
	})

	It("yields chunks that assemble into the expected assistant message", func(ctx SpecContext) {
		p := newProvider(streaming(parallelCalls...))
		var a llm.Assembler
		for _, c := range collect(ctx, newDriver(p), userRequest("weather and time in Paris")) {
			a.Add(c)
		}
		Expect(a.Message()).To(Equal(llm.Message{Role: session.RoleAssistant, Content: []session.Part{
			session.TextPart("Checking both."),
			{Type: session.PartToolCall, ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`},
			{Type: session.PartToolCall, ID: "call_b", Name: "get_time", Arguments: `{"tz":"CET"}`},
		}}))
		Expect(a.Usage()).To(Equal(&session.Usage{InputTokens: 40, OutputTokens: 25}))
		Expect(a.Finish()).To(Equal(&session.FinishReason{Kind: session.FinishToolCalls}))
	})

	DescribeTable("maps the provider's finish_reason",
		func(ctx SpecContext, frames []string, kind, code string) {
			p := newProvider(streaming(frames...))
			reason := last(collect(ctx, newDriver(p), userRequest("x")))
			Expect(reason.Kind).To(Equal(kind))
			if code == "" {
				Expect(reason.Failure).To(BeNil())
			} else {
				Expect(reason.Failure.Code).To(Equal(code))
			}
		},
		Entry("length → max-tokens", []string{chunk(`{"content":"a"}`, `"length"`)}, session.FinishMaxTokens, ""),
		Entry("content_filter → an error finish", []string{chunk(`{"content":"a"}`, `"content_filter"`)},
			session.FinishError, openai.CodeContentFilter),
		Entry("insufficient_system_resource → a server error", []string{chunk(`{"content":"a"}`, `"insufficient_system_resource"`)},
			session.FinishError, openai.CodeServer),
		Entry("[DONE] without a finish_reason and no tool calls → stop", []string{chunk(`{"content":"a"}`, "null")},
			session.FinishStop, ""),
		Entry("[DONE] without a finish_reason after tool calls → tool-calls",
			[]string{chunk(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`, "null")},
			session.FinishToolCalls, ""),
		Entry("stop with tool calls (older Ollama) → tool-calls",
			[]string{chunk(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `"stop"`)},
			session.FinishToolCalls, ""),
		Entry("an unknown finish_reason follows the content", []string{chunk(`{"content":"a"}`, `"eos"`)}, session.FinishStop, ""),
	)

	DescribeTable("maps usage",
		func(usage, want string) {
			chunks := openai.DecodeBody(context.Background(), strings.NewReader(
				"data: "+chunk(`{"content":"a"}`, `"stop"`)+"\n\ndata: "+usageFrame(usage)+"\n\ndata: [DONE]\n\n"))
			Expect(jsonLines(chunks)).To(ContainElement(want))
		},
		Entry("OpenAI's cached and reasoning tokens", `{"prompt_tokens":5,"completion_tokens":3,`+
			`"prompt_tokens_details":{"cached_tokens":2},"completion_tokens_details":{"reasoning_tokens":1}}`,
			`{"type":"usage","usage":{"inputTokens":5,"outputTokens":3,"cacheReadTokens":2,"reasoningTokens":1}}`),
		Entry("DeepSeek's cache hits", `{"prompt_tokens":5,"completion_tokens":3,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":1}`,
			`{"type":"usage","usage":{"inputTokens":5,"outputTokens":3,"cacheReadTokens":4}}`),
		Entry("plain counts (vLLM, Ollama)", `{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}`,
			`{"type":"usage","usage":{"inputTokens":5,"outputTokens":3}}`),
	)

	It("reads reasoning from the reasoning member newer vLLM and Ollama send", func() {
		chunks := openai.DecodeBody(context.Background(), strings.NewReader(
			"data: "+chunk(`{"reasoning":"hmm"}`, "null")+"\n\ndata: "+chunk(`{"content":"ok"}`, `"stop"`)+"\n\ndata: [DONE]\n\n"))
		Expect(jsonLines(chunks)).To(ContainElements(
			`{"type":"block-start","index":0,"blockType":"reasoning"}`,
			`{"type":"reasoning-delta","index":0,"text":"hmm"}`,
		))
	})

	It("keeps tool calls apart when a server sends whole calls without an index", func() {
		chunks := openai.DecodeBody(context.Background(), strings.NewReader(
			"data: "+chunk(`{"tool_calls":[{"id":"c1","function":{"name":"a","arguments":"{\"x\":1}"}}]}`, "null")+"\n\n"+
				"data: "+chunk(`{"tool_calls":[{"id":"c2","function":{"name":"b","arguments":"{}"}}]}`, `"tool_calls"`)+"\n\ndata: [DONE]\n\n"))
		Expect(openai.CheckProtocol(chunks)).To(Succeed())
		Expect(jsonLines(chunks)).To(ContainElements(
			`{"type":"block-end","index":0,"block":{"type":"tool-call","id":"c1","name":"a","arguments":"{\"x\":1}"}}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c2","name":"b","arguments":"{}"}}`,
		))
	})

	It("opens a new call when a proxy reuses index 0 with a new id", func() {
		chunks := openai.DecodeBody(context.Background(), strings.NewReader(
			"data: "+chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"a","arguments":"{\"x\""}}]}`, "null")+"\n\n"+
				"data: "+chunk(`{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`, "null")+"\n\n"+
				"data: "+chunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"b","arguments":"{"}}]}`, "null")+"\n\n"+
				"data: "+chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`, `"tool_calls"`)+"\n\ndata: [DONE]\n\n"))
		Expect(openai.CheckProtocol(chunks)).To(Succeed())
		Expect(jsonLines(chunks)).To(ContainElements(
			`{"type":"block-end","index":0,"block":{"type":"tool-call","id":"c1","name":"a","arguments":"{\"x\":1}"}}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c2","name":"b","arguments":"{}"}}`,
		))
	})

	It("accepts a stream that closes after its finish_reason without [DONE]", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, _ *http.Request, _ int) {
			startStream(w)
			writeFrames(w, chunk(`{"content":"done"}`, `"stop"`))
		})
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		Expect(last(chunks).Kind).To(Equal(session.FinishStop))
		Expect(jsonLines(chunks)).To(ContainElement(`{"type":"block-end","index":0,"block":{"type":"text","text":"done"}}`))
	})

	It("serves concurrent calls from one driver, each with its own answer", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			var body struct {
				Messages []struct{ Content string } `json:"messages"`
			}
			Expect(json.NewDecoder(r.Body).Decode(&body)).To(Succeed())
			streaming(chunk(fmt.Sprintf(`{"content":%q}`, "echo "+body.Messages[0].Content), `"stop"`))(w, r, n)
		})
		d := newDriver(p)
		var wg sync.WaitGroup
		texts := make([]string, 8)
		for i := range texts {
			wg.Go(func() {
				defer GinkgoRecover()
				var a llm.Assembler
				for _, c := range collect(ctx, d, userRequest(fmt.Sprint("call ", i))) {
					a.Add(c)
				}
				msg := a.Message()
				texts[i] = msg.Text()
			})
		}
		wg.Wait()
		for i, text := range texts {
			Expect(text).To(Equal(fmt.Sprint("echo call ", i)))
		}
	})

	It("can be iterated only once", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"a"}`, `"stop"`)))
		seq, err := newDriver(p).Stream(ctx, userRequest("x"))
		Expect(err).NotTo(HaveOccurred())
		Expect(last(drain(seq)).Kind).To(Equal(session.FinishStop))
		again := drain(seq)
		Expect(again).To(HaveLen(1))
		Expect(last(again).Failure.Code).To(Equal(openai.CodeConsumed))
		Expect(p.Requests()).To(HaveLen(1))
	})

	It("closes the connection when the consumer stops early", func(ctx SpecContext) {
		gone := make(chan struct{})
		p := newProvider(func(w http.ResponseWriter, r *http.Request, _ int) {
			startStream(w)
			writeFrames(w, chunk(`{"content":"a"}`, "null"))
			<-r.Context().Done() // the server sees the client go away
			close(gone)
		})
		seq, err := newDriver(p).Stream(ctx, userRequest("x"))
		Expect(err).NotTo(HaveOccurred())
		for c := range seq {
			if c.Type == session.ChunkTextDelta {
				break
			}
		}
		Eventually(gone).WithContext(ctx).Should(BeClosed())
	})
})
