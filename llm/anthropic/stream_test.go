package anthropic_test

import (
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolUse starts a tool_use block as the API does: its input {}.
func toolUse(i int, id, name string) string {
	return blockStart(i, `{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{}}`)
}

func inputDelta(i int, partial string) string {
	return delta(i, `{"type":"input_json_delta","partial_json":`+quote(partial)+`}`)
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

var _ = Describe("decoding a streamed answer", func() {
	It("turns text deltas into a text block, then usage, then a stop finish", func(ctx SpecContext) {
		p := newProvider(streaming(msgStart, blockStart(0, `{"type":"text","text":""}`), ping,
			textDelta(0, "Hel"), textDelta(0, "lo"), blockStop(0), msgDelta("end_turn", 12), msgStop))
		chunks := collect(ctx, newDriver(p), userRequest("hi"))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Hel"}`,
			`{"type":"text-delta","index":0,"text":"lo"}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Hello"}}`,
			`{"type":"usage","usage":{"inputTokens":25,"outputTokens":12,"cacheReadTokens":0}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("keeps a thinking block's signature and a redacted_thinking block's data on the block-end, as meta", func() {
		chunks := decode(sse(msgStart,
			blockStart(0, `{"type":"thinking","thinking":"","signature":""}`),
			delta(0, `{"type":"thinking_delta","thinking":"Two plus"}`),
			delta(0, `{"type":"thinking_delta","thinking":" two."}`),
			delta(0, `{"type":"signature_delta","signature":"EqQBCgIYAhIM"}`),
			delta(0, `{"type":"signature_delta","signature":"1gbcDa9GJwZA"}`),
			blockStop(0),
			blockStart(1, `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}`),
			blockStop(1),
			blockStart(2, `{"type":"text","text":""}`), textDelta(2, "4"), blockStop(2),
			msgDelta("end_turn", 9), msgStop))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"reasoning"}`,
			`{"type":"reasoning-delta","index":0,"text":"Two plus"}`,
			`{"type":"reasoning-delta","index":0,"text":" two."}`,
			`{"type":"block-end","index":0,"block":{"type":"reasoning","text":"Two plus two.","meta":{"anthropic-messages":{"signature":"EqQBCgIYAhIM1gbcDa9GJwZA"}}}}`,
			`{"type":"block-start","index":1,"blockType":"reasoning"}`,
			`{"type":"block-end","index":1,"block":{"type":"reasoning","text":"","meta":{"anthropic-messages":{"data":"EmwKAhgBEgy3va3pzix"}}}}`,
			`{"type":"block-start","index":2,"blockType":"text"}`,
			`{"type":"text-delta","index":2,"text":"4"}`,
			`{"type":"block-end","index":2,"block":{"type":"text","text":"4"}}`,
			`{"type":"usage","usage":{"inputTokens":25,"outputTokens":9,"cacheReadTokens":0}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
		msg := assemble(chunks)
		Expect(msg.Content[0].Meta).To(MatchJSON(`{"anthropic-messages":{"signature":"EqQBCgIYAhIM1gbcDa9GJwZA"}}`), "the assistant message keeps it")
		Expect(msg.Content[1].Meta).To(MatchJSON(`{"anthropic-messages":{"data":"EmwKAhgBEgy3va3pzix"}}`))
	})

	It("gives each tool_use block its own tool-call block, its id and name on the first delta, {} for a call without input", func() {
		chunks := decode(sse(msgStart,
			blockStart(0, `{"type":"text","text":""}`), textDelta(0, "Checking both."), blockStop(0),
			toolUse(1, "toolu_a", "get_weather"), inputDelta(1, ""), inputDelta(1, `{"city":`), inputDelta(1, `"Paris"}`), blockStop(1),
			toolUse(2, "toolu_b", "get_time"), blockStop(2),
			msgDelta("tool_use", 40), msgStop))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Checking both."}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Checking both."}}`,
			`{"type":"block-start","index":1,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":1,"id":"toolu_a","name":"get_weather","argumentsDelta":""}`,
			`{"type":"tool-call-delta","index":1,"argumentsDelta":"{\"city\":"}`,
			`{"type":"tool-call-delta","index":1,"argumentsDelta":"\"Paris\"}"}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"toolu_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`,
			`{"type":"block-start","index":2,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":2,"id":"toolu_b","name":"get_time","argumentsDelta":""}`,
			`{"type":"tool-call-delta","index":2,"argumentsDelta":"{}"}`,
			`{"type":"block-end","index":2,"block":{"type":"tool-call","id":"toolu_b","name":"get_time","arguments":"{}"}}`,
			`{"type":"usage","usage":{"inputTokens":25,"outputTokens":40,"cacheReadTokens":0}}`,
			`{"type":"finish","reason":{"kind":"tool-calls"}}`,
		}))
	})

	It("takes an input given whole at the start as the arguments, and gives a repeated or missing id one of its own", func() {
		chunks := decode(sse(msgStart,
			blockStart(0, `{"type":"tool_use","id":"toolu_x","name":"f","input":{"a": 1}}`), blockStop(0),
			toolUse(1, "toolu_x", "f"), inputDelta(1, `{"a":2}`), blockStop(1),
			toolUse(2, "", "f"), blockStop(2),
			msgDelta("tool_use", 3), msgStop))
		msg := assemble(chunks)
		Expect(msg.ToolCalls()).To(HaveLen(3))
		Expect([]string{msg.Content[0].ID, msg.Content[1].ID, msg.Content[2].ID}).To(Equal([]string{"toolu_x", "toolu_x_1", "toolu_2"}))
		Expect(msg.Content[0].Arguments).To(Equal(`{"a":1}`))
		Expect(msg.Content[1].Arguments).To(Equal(`{"a":2}`))
	})

	It("counts every prompt token as input, the cache's reads apart, and the thinking tokens", func() {
		chunks := decode(sse(
			`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","stop_reason":null,"stop_sequence":null,`+
				`"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}`,
			blockStart(0, `{"type":"text","text":""}`), textDelta(0, "x"), blockStop(0),
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":30,"output_tokens_details":{"thinking_tokens":20}}}`,
			msgStop))
		Expect(jsonLines(chunks)).To(ContainElement(`{"type":"usage","usage":{"inputTokens":115,"outputTokens":30,"cacheReadTokens":100,"reasoningTokens":20}}`))
	})

	DescribeTable("maps every stop_reason to a finish",
		func(reason string, calls bool, want session.FinishReason) {
			events := []string{msgStart, blockStart(0, `{"type":"text","text":""}`), textDelta(0, "x"), blockStop(0)}
			if calls {
				events = append(events, toolUse(1, "toolu_1", "f"), blockStop(1))
			}
			if reason != "" {
				events = append(events, msgDelta(reason, 1))
			}
			got := last(decode(sse(append(events, msgStop)...)))
			Expect(*got).To(Equal(want))
		},
		Entry("end_turn", "end_turn", false, session.FinishReason{Kind: session.FinishStop}),
		Entry("tool_use", "tool_use", true, session.FinishReason{Kind: session.FinishToolCalls}),
		Entry("stop_sequence", "stop_sequence", false, session.FinishReason{Kind: session.FinishStop}),
		Entry("pause_turn", "pause_turn", false, session.FinishReason{Kind: session.FinishStop}),
		Entry("end_turn with tool calls: the calls decide", "end_turn", true, session.FinishReason{Kind: session.FinishToolCalls}),
		Entry("max_tokens", "max_tokens", false, session.FinishReason{Kind: session.FinishMaxTokens}),
		Entry("max_tokens in a tool call", "max_tokens", true, session.FinishReason{Kind: session.FinishMaxTokens}),
		Entry("model_context_window_exceeded", "model_context_window_exceeded", false, session.FinishReason{Kind: session.FinishMaxTokens}),
		Entry("refusal", "refusal", false, session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{
			Code: live.CodeContentFilter, Message: "anthropic: the model refused to answer (stop_reason refusal)"}}),
		Entry("none, then message_stop", "", false, session.FinishReason{Kind: session.FinishStop}),
	)

	DescribeTable("ends with an error event as an error finish coded by its type, the key scrubbed",
		func(errType, code string) {
			chunks := decode(sse(msgStart, blockStart(0, `{"type":"text","text":""}`), textDelta(0, "par"),
				`{"type":"error","error":{"type":"`+errType+`","message":"nope for `+testKey+`"}}`))
			Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{
				Code: code, Message: "anthropic: the API sent an error in the stream: " + errType + ": nope for [REDACTED]"}}))
		},
		Entry("overloaded", "overloaded_error", live.CodeServer),
		Entry("api", "api_error", live.CodeServer),
		Entry("rate limit", "rate_limit_error", live.CodeRateLimit),
		Entry("authentication", "authentication_error", live.CodeAuth),
		Entry("invalid request", "invalid_request_error", live.CodeBadRequest),
		Entry("a type of its own", "brand_new_error", live.CodeProvider),
	)

	It("fails a stream cut before message_stop as a transport failure, the blocks left open", func() {
		chunks := decode(sse(msgStart, blockStart(0, `{"type":"text","text":""}`), textDelta(0, "par")))
		Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{
			Code: live.CodeTransport, Message: "anthropic: the stream ended before the answer was complete"}}))
		cut := decode(sse(msgStart) + "event: content_block_start\ndata: {\"type\":\"content_bl")
		Expect(last(cut).Failure.Code).To(Equal(live.CodeTransport))
	})

	It("takes a stream that ends after message_delta's stop_reason as complete", func() {
		chunks := decode(sse(msgStart, blockStart(0, `{"type":"text","text":""}`), textDelta(0, "x"), blockStop(0), msgDelta("end_turn", 1)))
		Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishStop}))
	})

	It("skips blocks it does not carry (server tools), with their deltas, numbering the rest in start order", func() {
		chunks := decode(sse(msgStart,
			blockStart(0, `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}`),
			inputDelta(0, `{"query":"x"}`), blockStop(0),
			blockStart(1, `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}`), blockStop(1),
			blockStart(2, `{"type":"text","text":"Found"}`),
			delta(2, `{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"x"}}`),
			textDelta(2, " it."), blockStop(2),
			msgDelta("end_turn", 5), msgStop))
		Expect(jsonLines(chunks)[:4]).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Found"}`,
			`{"type":"text-delta","index":0,"text":" it."}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Found it."}}`,
		}))
	})

	It("reads an event by its name when its data names no type, and ignores events it does not know", func() {
		chunks := decode(sse(msgStart, blockStart(0, `{"type":"text","text":""}`), textDelta(0, "x"), blockStop(0), `{"type":"brand_new_event"}`) +
			"event: message_stop\ndata: {}\n\n")
		Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishStop}))
	})

	DescribeTable("refuses a stream it cannot read on as BAD_STREAM, naming the event",
		func(body, want string) {
			fin := last(decode(body))
			Expect(fin.Failure.Code).To(Equal(live.CodeBadStream))
			Expect(fin.Failure.Message).To(ContainSubstring(want))
		},
		Entry("not JSON", "event: message_start\ndata: {nope\n\n", "anthropic: event 1 is not a stream event"),
		Entry("no type at all", "data: {}\n\n", "anthropic: event 1 names no type"),
		Entry("a delta for a block never started", sse(msgStart, textDelta(3, "x")), "event 2 (content_block_delta): content block 3 never started"),
		Entry("a block started twice", sse(msgStart, blockStart(0, `{"type":"text","text":""}`), blockStart(0, `{"type":"text","text":""}`)), "content block 0 started twice"),
		Entry("a delta of another type", sse(msgStart, blockStart(0, `{"type":"text","text":""}`), inputDelta(0, "{}")), "a input_json_delta for content block 0, which is not of its type"),
		Entry("a delta after the stop", sse(msgStart, blockStart(0, `{"type":"text","text":""}`), blockStop(0), textDelta(0, "x")), "content block 0 already stopped"),
	)
})

var _ = Describe("the driver's HTTP side", func() {
	It("posts to {base}/messages for an API root and to {base}/v1/messages for an origin, the key in x-api-key, with anthropic-version", func(ctx SpecContext) {
		p := newProvider(streaming(msgStart, msgStop))
		collect(ctx, newDriver(p), userRequest("hi"))
		collect(ctx, newDriver(p, func(c *anthropic.Config) { c.BaseURL = p.URL; c.Version = "2026-10-21" }), userRequest("hi"))
		reqs := p.Requests()
		Expect(reqs[0].Path).To(Equal("/v1/messages"))
		Expect(reqs[1].Path).To(Equal("/v1/messages"))
		Expect(reqs[0].Header.Get("X-Api-Key")).To(Equal(testKey))
		Expect(reqs[0].Header.Get("Anthropic-Version")).To(Equal("2023-06-01"))
		Expect(reqs[1].Header.Get("Anthropic-Version")).To(Equal("2026-10-21"))
		Expect(reqs[0].Header.Get("Authorization")).To(BeEmpty())
		Expect(reqs[0].Header.Get("Content-Type")).To(Equal("application/json"))
	})

	It("sends anthropic-version without a key too (a keyless proxy)", func(ctx SpecContext) {
		p := newProvider(streaming(msgStart, msgStop))
		collect(ctx, newDriver(p, func(c *anthropic.Config) { c.APIKey = "" }), userRequest("hi"))
		Expect(p.Requests()[0].Header.Get("Anthropic-Version")).To(Equal("2023-06-01"))
		Expect(p.Requests()[0].Header.Get("X-Api-Key")).To(BeEmpty())
	})

	It("reads the API's error body, says what to check, and retries a 529 overloaded", func(ctx SpecContext) {
		p := newProvider(failing(http.StatusUnauthorized, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
		fin := last(collect(ctx, newDriver(p), userRequest("hi")))
		Expect(*fin.Failure).To(Equal(session.Failure{Code: live.CodeAuth, Status: 401,
			Message: "anthropic: HTTP 401 Unauthorized: invalid x-api-key; check the API key"}))

		p = newProvider(failing(http.StatusNotFound, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`))
		fin = last(collect(ctx, newDriver(p), userRequest("hi")))
		Expect(fin.Failure.Message).To(HaveSuffix(`check the model name ("claude-sonnet-4-5") and that the base URL is the API root, such as https://api.anthropic.com/v1`))

		p = newProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				failing(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)(w, r, n)
				return
			}
			streaming(msgStart, blockStart(0, `{"type":"text","text":""}`), textDelta(0, "ok"), blockStop(0), msgDelta("end_turn", 1), msgStop)(w, r, n)
		})
		msg := assemble(collect(ctx, newDriver(p), userRequest("hi")))
		Expect(msg.Text()).To(Equal("ok"))
		Expect(p.Requests()).To(HaveLen(2))
	})

	It("names the key it sends by where it travels, for the recorder's tripwire", func() {
		d, err := anthropic.New(anthropic.Config{BaseURL: "https://api.anthropic.com/v1", APIKey: testKey,
			Header: http.Header{"Anthropic-Beta": {"interleaved-thinking-2025-05-14"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Credentials()).To(Equal(map[string]string{"the x-api-key header": testKey}))
	})

	It("reads its key from AGENTSNAP_API_KEY, else ANTHROPIC_API_KEY", func() {
		env := map[string]string{"ANTHROPIC_API_KEY": " sk-ant-env "}
		key, from := anthropic.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"sk-ant-env", "ANTHROPIC_API_KEY"}))
		env["AGENTSNAP_API_KEY"] = "sk-first"
		key, from = anthropic.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"sk-first", "AGENTSNAP_API_KEY"}))
	})
})
