package responses_test

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("decoding a response stream", func() {
	It("turns a message into a text block whose end carries the item's id, then the usage and a stop", func(ctx SpecContext) {
		chunks := decode(ctx, sse(
			created(),
			`{"type":"response.in_progress","response":{"id":"resp_live","status":"in_progress","output":[]}}`,
			added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			`{"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
			textDelta("msg_1", "Hel"), textDelta("msg_1", "lo"),
			`{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello","logprobs":[]}`,
			`{"type":"response.content_part.done","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hello","annotations":[]}}`,
			done(0, message("msg_1", "Hello")),
			completed(usage, message("msg_1", "Hello")),
		))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Hel"}`,
			`{"type":"text-delta","index":0,"text":"lo"}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Hello","meta":{"openai-responses":{"id":"msg_1"}}}}`,
			`{"type":"usage","usage":{"inputTokens":12,"outputTokens":5,"cacheReadTokens":8,"reasoningTokens":3}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("keeps a reasoning item's summary parts apart by a blank line and its encrypted content and id in the block's meta, and a message's phase", func(ctx SpecContext) {
		rsDone := `{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"First."},{"type":"summary_text","text":"Second."}],"encrypted_content":"RU5D"}`
		commentary := `{"type":"message","id":"msg_1","status":"completed","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"Done.","annotations":[]}]}`
		chunks := decode(ctx, sse(created(),
			added(0, `{"type":"reasoning","id":"rs_1","summary":[]}`),
			summaryDelta("rs_1", 0, "First."), summaryDelta("rs_1", 1, "Second."),
			done(0, rsDone),
			added(1, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			textDelta("msg_1", "Done."),
			done(1, commentary),
			completed(usage, rsDone, commentary),
		))
		Expect(jsonLines(chunks)[:6]).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"reasoning"}`,
			`{"type":"reasoning-delta","index":0,"text":"First."}`,
			`{"type":"reasoning-delta","index":0,"text":"\n\nSecond."}`,
			`{"type":"block-end","index":0,"block":{"type":"reasoning","text":"First.\n\nSecond.","meta":{"openai-responses":{"id":"rs_1","encrypted_content":"RU5D"}}}}`,
			`{"type":"block-start","index":1,"blockType":"text"}`,
			`{"type":"text-delta","index":1,"text":"Done."}`,
		}))
		Expect(jsonLines(chunks)[6]).To(Equal(`{"type":"block-end","index":1,"block":{"type":"text","text":"Done.","meta":{"openai-responses":{"id":"msg_1","phase":"final_answer"}}}}`))
	})

	It("gives a reasoning item with only encrypted content an empty block to carry it, and one with nothing no block", func(ctx SpecContext) {
		enc := `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"RU5D"}`
		bare := `{"type":"reasoning","id":"rs_2","summary":[]}`
		chunks := decode(ctx, sse(created(), added(0, enc), done(0, enc), added(1, bare), done(1, bare), completed("null", enc, bare)))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"reasoning"}`,
			`{"type":"block-end","index":0,"block":{"type":"reasoning","text":"","meta":{"openai-responses":{"id":"rs_1","encrypted_content":"RU5D"}}}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("turns parallel function calls into tool-call blocks named by call_id, a repeated call_id made unique, and finishes tool-calls", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			added(0, `{"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"","status":"in_progress"}`),
			argsDelta("fc_1", `{"city":`), argsDelta("fc_1", `"Paris"}`),
			done(0, call("fc_1", "call_a", "get_weather", `{"city":"Paris"}`)),
			added(1, `{"type":"function_call","id":"fc_2","call_id":"call_a","name":"get_time","arguments":"","status":"in_progress"}`),
			argsDelta("fc_2", `{}`),
			done(1, call("fc_2", "call_a", "get_time", `{}`)),
			completed(usage),
		))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":0,"id":"call_a","name":"get_weather","argumentsDelta":""}`,
			`{"type":"tool-call-delta","index":0,"argumentsDelta":"{\"city\":"}`,
			`{"type":"tool-call-delta","index":0,"argumentsDelta":"\"Paris\"}"}`,
			`{"type":"block-end","index":0,"block":{"type":"tool-call","id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}","meta":{"openai-responses":{"id":"fc_1"}}}}`,
			`{"type":"block-start","index":1,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":1,"id":"call_a_1","name":"get_time","argumentsDelta":""}`,
			`{"type":"tool-call-delta","index":1,"argumentsDelta":"{}"}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_a_1","name":"get_time","arguments":"{}","meta":{"openai-responses":{"id":"fc_2"}}}}`,
			`{"type":"usage","usage":{"inputTokens":12,"outputTokens":5,"cacheReadTokens":8,"reasoningTokens":3}}`,
			`{"type":"finish","reason":{"kind":"tool-calls"}}`,
		}))
	})

	It("takes what a done item says beyond its deltas, and every item from response.completed when the stream showed none", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			textDelta("msg_1", "Hel"),
			done(0, message("msg_1", "Hello")),
			completed(usage),
		))
		Expect(jsonLines(chunks)[2]).To(Equal(`{"type":"text-delta","index":0,"text":"lo"}`))

		chunks = decode(ctx, sse(created(), completed(usage, message("msg_1", "Whole."), call("fc_1", "call_1", "f", `{"a":1}`))))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Whole."}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Whole.","meta":{"openai-responses":{"id":"msg_1"}}}}`,
			`{"type":"block-start","index":1,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":1,"id":"call_1","name":"f","argumentsDelta":"{\"a\":1}"}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_1","name":"f","arguments":"{\"a\":1}","meta":{"openai-responses":{"id":"fc_1"}}}}`,
			`{"type":"usage","usage":{"inputTokens":12,"outputTokens":5,"cacheReadTokens":8,"reasoningTokens":3}}`,
			`{"type":"finish","reason":{"kind":"tool-calls"}}`,
		}))
	})

	It("puts a refusal in the text block, and passes over events that say nothing for the log", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			`{"type":"response.web_search_call.searching","item_id":"ws_1","output_index":0}`,
			added(1, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			`{"type":"response.refusal.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"I can't."}`,
			`{"type":"response.output_text.annotation.added","item_id":"msg_1","annotation":{"type":"url_citation"}}`,
			done(1, `{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I can't."}]}`),
			completed(usage),
		))
		Expect(jsonLines(chunks)[:3]).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"I can't."}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"I can't.","meta":{"openai-responses":{"id":"msg_1"}}}}`,
		}))
	})

	DescribeTable("ends as the response did",
		func(terminal string, want session.FinishReason) {
			chunks := decode(bg(), sse(created(),
				added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
				textDelta("msg_1", "cut"), terminal))
			Expect(*last(chunks)).To(Equal(want))
		},
		Entry("completed: stop", completed("null", message("msg_1", "cut")), session.FinishReason{Kind: session.FinishStop}),
		Entry("incomplete at the token limit: max-tokens",
			`{"type":"response.incomplete","response":{"id":"resp_live","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}}`,
			session.FinishReason{Kind: session.FinishMaxTokens}),
		Entry("incomplete by the content filter: CONTENT_FILTER",
			`{"type":"response.incomplete","response":{"id":"resp_live","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[]}}`,
			session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "CONTENT_FILTER", Message: "openai-responses: the provider stopped the response (incomplete_details.reason content_filter)"}}),
		Entry("failed with a server error: SERVER",
			`{"type":"response.failed","response":{"id":"resp_live","status":"failed","error":{"code":"server_error","message":"The model failed."},"output":[]}}`,
			session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "SERVER", Message: "openai-responses: the provider sent an error in the stream: The model failed."}}),
		Entry("failed at a rate limit: RATE_LIMIT",
			`{"type":"response.failed","response":{"id":"resp_live","status":"failed","error":{"code":"rate_limit_exceeded","message":"Slow down."},"output":[]}}`,
			session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "RATE_LIMIT", Message: "openai-responses: the provider sent an error in the stream: Slow down."}}),
		Entry("an error event as OpenAI sends it, nested",
			`{"type":"error","error":{"type":"server_error","code":"server_error","message":"Boom.","param":null}}`,
			session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "SERVER", Message: "openai-responses: the provider sent an error in the stream: Boom."}}),
		Entry("an error event as documented, flat",
			`{"type":"error","code":"rate_limit_exceeded","message":"Slow down.","param":null}`,
			session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "RATE_LIMIT", Message: "openai-responses: the provider sent an error in the stream: Slow down."}}),
		Entry("a proxy's Chat-style error object",
			`{"error":{"message":"Upstream is down.","type":"server_error"}}`,
			session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "SERVER", Message: "openai-responses: the provider sent an error in the stream: Upstream is down."}}),
	)

	It("ends a stream cut before its terminal event with a TRANSPORT finish, the cut block left open", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			textDelta("msg_1", "cut")))
		Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "TRANSPORT", Message: "openai-responses: the stream ended before the answer was complete"}}))
		Expect(jsonLines(chunks)).To(HaveLen(3))
	})

	DescribeTable("ends with a BAD_STREAM finish naming an event it cannot read",
		func(data, want string) {
			chunks := decode(bg(), sse(created())+"data: "+data+"\n\n")
			Expect(last(chunks).Failure.Code).To(Equal("BAD_STREAM"))
			Expect(last(chunks).Failure.Message).To(Equal(want))
		},
		Entry("not JSON", `{"type":`, `openai-responses: stream event 2 is not an event object (unexpected end of JSON input); it starts "{\"type\":"`),
		Entry("no type", `{"delta":"x"}`, `openai-responses: stream event 2 has no type; it starts "{\"delta\":\"x\"}"`),
		Entry("a known event of the wrong shape", `{"type":"response.output_text.delta","delta":5}`,
			`openai-responses: stream event 2 is not a response.output_text.delta event (json: cannot unmarshal number into Go struct field event.delta of type string); it starts "{\"type\":\"response.output_text.delta\",\"delta\":5}"`),
	)

	It("scrubs the key from a provider's error message", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(), fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":"bad key %s"}}`, testKey)))
		Expect(last(chunks).Failure.Message).NotTo(ContainSubstring(testKey))
		Expect(last(chunks).Failure.Message).To(ContainSubstring("[REDACTED]"))
	})

	It("ignores what follows the terminal event", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(), completed("null"), textDelta("msg_9", "late")))
		Expect(jsonLines(chunks)).To(Equal([]string{`{"type":"finish","reason":{"kind":"stop"}}`}))
		Expect(strings.Join(jsonLines(chunks), "")).NotTo(ContainSubstring("late"))
	})
})
