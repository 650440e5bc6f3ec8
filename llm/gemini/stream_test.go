package gemini_test

import (
	"context"
	"net/http"
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

const usage = `{"promptTokenCount":12,"candidatesTokenCount":3,"thoughtsTokenCount":5,"cachedContentTokenCount":8,"totalTokenCount":20}`

var _ = Describe("streaming an answer", func() {
	It("turns text parts into one text block, then usage, then a stop finish", func(ctx SpecContext) {
		p := newProvider(streaming(
			event(`{"text":"Hel"}`, "", ""),
			event(`{"text":"lo"}`, "STOP", `{"promptTokenCount":12,"candidatesTokenCount":2,"totalTokenCount":14}`),
		))
		Expect(jsonLines(collect(ctx, newDriver(p), userRequest("hi")))).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Hel"}`,
			`{"type":"text-delta","index":0,"text":"lo"}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Hello"}}`,
			`{"type":"usage","usage":{"inputTokens":12,"outputTokens":2}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("puts thought parts in a reasoning block, ends each block when the next starts, and keeps a thought signature as the block's meta", func(ctx SpecContext) {
		p := newProvider(streaming(
			event(`{"text":"Two plus","thought":true}`, "", ""),
			event(`{"text":" two.","thought":true,"thoughtSignature":"c2lnLXRob3VnaHQ="}`, "", ""),
			event(`{"text":"4"}`, "", ""),
			event(`{"text":"","thoughtSignature":"c2lnLXRleHQ="}`, "STOP", usage),
		))
		Expect(jsonLines(collect(ctx, newDriver(p), userRequest("2+2?")))).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"reasoning"}`,
			`{"type":"reasoning-delta","index":0,"text":"Two plus"}`,
			`{"type":"reasoning-delta","index":0,"text":" two."}`,
			`{"type":"block-end","index":0,"block":{"type":"reasoning","text":"Two plus two.","meta":{"gemini":{"thoughtSignature":"c2lnLXRob3VnaHQ="}}}}`,
			`{"type":"block-start","index":1,"blockType":"text"}`,
			`{"type":"text-delta","index":1,"text":"4"}`,
			`{"type":"block-end","index":1,"block":{"type":"text","text":"4","meta":{"gemini":{"thoughtSignature":"c2lnLXRleHQ="}}}}`,
			`{"type":"usage","usage":{"inputTokens":12,"outputTokens":8,"cacheReadTokens":8,"reasoningTokens":5}}`,
			`{"type":"finish","reason":{"kind":"stop"}}`,
		}))
	})

	It("starts a new text block after a part that carries a signature, and gives a signature that comes alone to the block before it", func(ctx SpecContext) {
		p := newProvider(streaming(
			event(`{"text":"a","thoughtSignature":"c2lnLTE="}`, "", ""),
			event(`{"text":"b"}`, "", ""),
			event(`{"functionCall":{"name":"lookup","args":{"key":"x"}}}`, "", ""),
			event(`{"thoughtSignature":"c2lnLTI="}`, "STOP", ""),
		))
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		var a llm.Assembler
		for _, c := range chunks {
			a.Add(c)
		}
		Expect(a.Message().Content).To(Equal([]session.Part{
			{Type: session.PartText, Text: "a", Meta: gemini.Meta("c2lnLTE=")},
			{Type: session.PartText, Text: "b"},
			{Type: session.PartToolCall, ID: "call_1_1_2", Name: "lookup", Arguments: `{"key":"x"}`, Meta: gemini.Meta("c2lnLTI=")},
		}))
	})

	It("records each function call whole, its arguments in canonical form, giving calls without an id call_TURN_STEP_N and a repeated id ID_N", func(ctx SpecContext) {
		p := newProvider(streaming(
			event(`{"text":"Checking."}`, "", ""),
			event(`{"functionCall":{"id":"fc_1","name":"get_weather","args":{"unit":"C","city":"Paris"}},"thoughtSignature":"c2ln"},`+
				`{"functionCall":{"name":"get_time","args":{"tz":"CET"}}},`+
				`{"functionCall":{"id":"fc_1","name":"get_weather","args":{"city":"Rome"}}},`+
				`{"functionCall":{"name":"ping"}}`, "STOP", `{"promptTokenCount":40,"candidatesTokenCount":25,"totalTokenCount":65}`),
		))
		Expect(jsonLines(collect(ctx, newDriver(p), userRequest("weather")))).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Checking."}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Checking."}}`,
			`{"type":"block-start","index":1,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":1,"id":"fc_1","name":"get_weather","argumentsDelta":"{\"city\":\"Paris\",\"unit\":\"C\"}"}`,
			`{"type":"block-end","index":1,"block":{"type":"tool-call","id":"fc_1","name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"C\"}","meta":{"gemini":{"thoughtSignature":"c2ln"}}}}`,
			`{"type":"block-start","index":2,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":2,"id":"call_1_1_2","name":"get_time","argumentsDelta":"{\"tz\":\"CET\"}"}`,
			`{"type":"block-end","index":2,"block":{"type":"tool-call","id":"call_1_1_2","name":"get_time","arguments":"{\"tz\":\"CET\"}"}}`,
			`{"type":"block-start","index":3,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":3,"id":"fc_1_3","name":"get_weather","argumentsDelta":"{\"city\":\"Rome\"}"}`,
			`{"type":"block-end","index":3,"block":{"type":"tool-call","id":"fc_1_3","name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}`,
			`{"type":"block-start","index":4,"blockType":"tool-call"}`,
			`{"type":"tool-call-delta","index":4,"id":"call_1_1_4","name":"ping","argumentsDelta":"{}"}`,
			`{"type":"block-end","index":4,"block":{"type":"tool-call","id":"call_1_1_4","name":"ping","arguments":"{}"}}`,
			`{"type":"usage","usage":{"inputTokens":40,"outputTokens":25}}`,
			`{"type":"finish","reason":{"kind":"tool-calls"}}`,
		}))
	})

	It("keeps the last usage of the stream, a running total", func(ctx SpecContext) {
		p := newProvider(streaming(
			event(`{"text":"a"}`, "", `{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}`),
			event(`{"text":"b"}`, "STOP", `{"promptTokenCount":5,"candidatesTokenCount":2,"toolUsePromptTokenCount":3,"totalTokenCount":10}`),
		))
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		Expect(chunks[len(chunks)-2].Usage).To(Equal(&session.Usage{InputTokens: 8, OutputTokens: 2}))
	})

	DescribeTable("maps the finishReason",
		func(ctx SpecContext, parts, reason, kind, code string) {
			p := newProvider(streaming(event(parts, reason, "")))
			r := last(collect(ctx, newDriver(p), userRequest("x")))
			Expect(r.Kind).To(Equal(kind))
			if code == "" {
				Expect(r.Failure).To(BeNil())
			} else {
				Expect(r.Failure.Code).To(Equal(code))
				Expect(r.Failure.Message).To(ContainSubstring("finishReason " + reason))
			}
		},
		Entry("STOP → stop", `{"text":"a"}`, "STOP", session.FinishStop, ""),
		Entry("STOP after a function call → tool-calls", `{"functionCall":{"name":"f","args":{}}}`, "STOP", session.FinishToolCalls, ""),
		Entry("an unknown reason follows the content", `{"functionCall":{"name":"f","args":{}}}`, "FUNCTION_CALL", session.FinishToolCalls, ""),
		Entry("FINISH_REASON_UNSPECIFIED follows the content", `{"text":"a"}`, "FINISH_REASON_UNSPECIFIED", session.FinishStop, ""),
		Entry("MAX_TOKENS → max-tokens", `{"text":"a"}`, "MAX_TOKENS", session.FinishMaxTokens, ""),
		Entry("SAFETY → a content filter error", `{"text":"a"}`, "SAFETY", session.FinishError, live.CodeContentFilter),
		Entry("RECITATION → a content filter error", `{"text":"a"}`, "RECITATION", session.FinishError, live.CodeContentFilter),
		Entry("PROHIBITED_CONTENT → a content filter error", `{"text":"a"}`, "PROHIBITED_CONTENT", session.FinishError, live.CodeContentFilter),
		Entry("MALFORMED_FUNCTION_CALL → a provider error", `{"text":""}`, "MALFORMED_FUNCTION_CALL", session.FinishError, live.CodeProvider),
		Entry("OTHER → a provider error", `{"text":"a"}`, "OTHER", session.FinishError, live.CodeProvider),
		Entry("BLOCKLIST → a content filter error", `{"text":"a"}`, "BLOCKLIST", session.FinishError, live.CodeContentFilter),
		Entry("SPII → a content filter error", `{"text":"a"}`, "SPII", session.FinishError, live.CodeContentFilter),
		Entry("IMAGE_SAFETY → a content filter error", `{"text":"a"}`, "IMAGE_SAFETY", session.FinishError, live.CodeContentFilter),
		Entry("IMAGE_PROHIBITED_CONTENT → a content filter error", `{"text":"a"}`, "IMAGE_PROHIBITED_CONTENT", session.FinishError, live.CodeContentFilter),
		Entry("IMAGE_RECITATION → a content filter error", `{"text":"a"}`, "IMAGE_RECITATION", session.FinishError, live.CodeContentFilter),
		Entry("UNEXPECTED_TOOL_CALL → a provider error", `{"text":""}`, "UNEXPECTED_TOOL_CALL", session.FinishError, live.CodeProvider),
		Entry("TOO_MANY_TOOL_CALLS → a provider error", `{"text":""}`, "TOO_MANY_TOOL_CALLS", session.FinishError, live.CodeProvider),
		Entry("LANGUAGE → a provider error", `{"text":"a"}`, "LANGUAGE", session.FinishError, live.CodeProvider),
	)

	It("ends a stream whose prompt was blocked with a content filter error", func(ctx SpecContext) {
		p := newProvider(streaming(`{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3,"totalTokenCount":3}}`))
		r := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(r.Failure).To(Equal(&session.Failure{Code: live.CodeContentFilter, Message: "gemini: the provider blocked the prompt (promptFeedback.blockReason SAFETY)"}))
	})

	It("ends the stream at an error event, classified by its code and scrubbed of the key", func(ctx SpecContext) {
		p := newProvider(streaming(
			event(`{"text":"partial"}`, "", ""),
			`{"error":{"code":503,"message":"The model is overloaded (key `+testKey+`).","status":"UNAVAILABLE"}}`,
		))
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		Expect(jsonLines(chunks[:2])).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"partial"}`,
		}))
		Expect(last(chunks).Failure).To(Equal(&session.Failure{Code: live.CodeServer, Status: 503, Message: "gemini: the provider sent an error in the stream: The model is overloaded (key [REDACTED])."}))
	})

	It("ends a stream cut before its finishReason with a transport error", func(ctx SpecContext) {
		p := newProvider(streaming(event(`{"text":"Hel"}`, "", "")))
		r := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(r.Failure.Code).To(Equal(live.CodeTransport))
		Expect(r.Failure.Message).To(Equal("gemini: the stream ended before the answer was complete"))
	})

	It("ends the answer at the end of the input once the finishReason came, without [DONE]", func(ctx SpecContext) {
		p := newProvider(streaming(event(`{"text":"done"}`, "STOP", "")))
		Expect(last(collect(ctx, newDriver(p), userRequest("x"))).Kind).To(Equal(session.FinishStop))
	})

	DescribeTable("refuses what it cannot record, naming it",
		func(ctx SpecContext, data, want string) {
			p := newProvider(streaming(data))
			r := last(collect(ctx, newDriver(p), userRequest("x")))
			Expect(r.Failure.Code).To(Equal(live.CodeBadStream))
			Expect(r.Failure.Message).To(ContainSubstring(want))
		},
		Entry("an event that is not JSON", `{"candidates":[`, "stream event 1 is not a GenerateContentResponse"),
		Entry("inline data", event(`{"inlineData":{"mimeType":"image/png","data":"AAAA"}}`, "STOP", ""), "the answer holds a inlineData part"),
		Entry("code execution", event(`{"executableCode":{"language":"PYTHON","code":"1"}}`, "STOP", ""), "the answer holds a executableCode part"),
		Entry("args that are not an object", event(`{"functionCall":{"name":"f","args":[1]}}`, "STOP", ""), `the args of function call "f" are not a JSON object`),
	)

	It("answers a 400 with what the Gemini API means by it: often a bad key", func(ctx SpecContext) {
		p := newProvider(failing(http.StatusBadRequest, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`))
		r := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(r.Failure).To(Equal(&session.Failure{Code: live.CodeBadRequest, Status: 400,
			Message: "gemini: HTTP 400 Bad Request: API key not valid. Please pass a valid API key.; check the API key (the Gemini API answers a bad key with 400) and the request"}))
	})

	It("retries a 429 before anything streams, then streams", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				failing(http.StatusTooManyRequests, `{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}`)(w, r, n)
				return
			}
			streaming(event(`{"text":"ok"}`, "STOP", ""))(w, r, n)
		})
		Expect(last(collect(ctx, newDriver(p), userRequest("x"))).Kind).To(Equal(session.FinishStop))
		Expect(p.Requests()).To(HaveLen(2))
	})

	It("reads an answer cut into reads of one byte the same", func() {
		body := "data: " + event(`{"text":"a","thought":true}`, "", "") + "\n\ndata: " + event(`{"text":"b"}`, "STOP", "") + "\n\n"
		whole := gemini.DecodeBody(context.Background(), strings.NewReader(body))
		Expect(gemini.CheckProtocol(whole)).To(Succeed())
		Expect(gemini.DecodeBody(context.Background(), iotest.OneByteReader(strings.NewReader(body)))).To(Equal(whole))
	})
})
