package gemini_test

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

func decode(body string) *gemini.Call {
	GinkgoHelper()
	c, err := gemini.DecodeRequest([]byte(body))
	Expect(err).NotTo(HaveOccurred())
	return c
}

func text(s string) session.Part { return session.TextPart(s) }

func result(id, name, text string, isErr bool) session.Message {
	return session.Message{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: id, Name: name, Content: []session.Part{session.TextPart(text)}, IsError: isErr}}}
}

var _ = Describe("an agent's request", func() {
	It("reads a streamed answer kept as it came — a content per event — as one assistant message, adjacent text joined up to a signature", func() {
		c := decode(`{"contents":[
			{"role":"user","parts":[{"text":"Hi"},{"text":" there"}]},
			{"role":"model","parts":[{"text":"Let me","thought":true}]},
			{"role":"model","parts":[{"text":" think.","thought":true,"thoughtSignature":"c2lnLTE="}]},
			{"role":"model","parts":[{"text":"Hel"}]},
			{"role":"model","parts":[{"text":"lo","thoughtSignature":"c2lnLTI="},{"text":"!"}]},
			{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"lookup","args":{"b":1,"a":"x"}},"thoughtSignature":"c2lnLTM="}]},
			{"role":"model","parts":[{"thoughtSignature":"c2lnLTQ="}]}
		],"generationConfig":{}}`)
		Expect(c.Messages).To(Equal([]session.Message{
			{Role: session.RoleUser, Content: []session.Part{text("Hi there")}},
			{Role: session.RoleAssistant, Content: []session.Part{
				{Type: session.PartReasoning, Text: "Let me think.", Meta: gemini.Meta("c2lnLTE=")},
				{Type: session.PartText, Text: "Hello", Meta: gemini.Meta("c2lnLTI=")},
				{Type: session.PartText, Text: "!"},
				{Type: session.PartToolCall, ID: "fc_1", Name: "lookup", Arguments: `{"a":"x","b":1}`, Meta: gemini.Meta("c2lnLTM=")},
				{Type: session.PartText, Meta: gemini.Meta("c2lnLTQ=")},
			}},
		}))
		Expect(c.Settings).To(BeEmpty(), "generationConfig: {}, which the SDK always sends, is no setting")
	})

	It("reads each function response as a tool result — by its id, or by its name in the answer before it — output, error or the whole response as its text", func() {
		c := decode(`{"contents":[
			{"role":"user","parts":[{"text":"Go."}]},
			{"role":"model","parts":[
				{"functionCall":{"id":"fc_1","name":"lookup","args":{"key":"a"}}},
				{"functionCall":{"id":"fc_2","name":"lookup","args":{"key":"b"}}},
				{"functionCall":{"id":"fc_3","name":"add"}}
			]},
			{"role":"user","parts":[
				{"functionResponse":{"name":"lookup","response":{"output":"A"}}},
				{"functionResponse":{"name":"lookup","response":{"error":{"why":"none"}}}},
				{"functionResponse":{"id":"fc_3","name":"add","response":{"sum":3}}},
				{"text":"Thanks."}
			]}
		]}`)
		Expect(c.Messages[2:]).To(Equal([]session.Message{
			result("fc_1", "lookup", "A", false),
			result("fc_2", "lookup", `{"why":"none"}`, true),
			result("fc_3", "add", `{"sum":3}`, false),
			{Role: session.RoleUser, Content: []session.Part{text("Thanks.")}},
		}))
	})

	DescribeTable("reads a function response's text as encoding/json reads its members: the last of a name, names decoded, a string as it is, anything else as canonical JSON, a response of more than its output or error whole",
		func(response, want string, isErr bool) {
			c := decode(`{"contents":[{"role":"user","parts":[{"text":"Go."}]},{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"f"}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"fc_1","name":"f","response":` + response + `}}]}]}`)
			Expect(c.Messages[2:]).To(Equal([]session.Message{result("fc_1", "f", want, isErr)}))
		},
		Entry("output", `{"output":"v"}`, "v", false),
		Entry("error", `{"error":"no"}`, "no", true),
		Entry("error and output: the whole response, an error", `{"output":"a","error":{"code":1}}`, `{"error":{"code":1},"output":"a"}`, true),
		Entry("output beside another member: the whole response", `{"output":"v2.4.1","source":"notes"}`, `{"output":"v2.4.1","source":"notes"}`, false),
		Entry("error beside another member: the whole response, an error", `{"name":"f","error":"no"}`, `{"error":"no","name":"f"}`, true),
		Entry("a name written with an escape", `{"\u0065rror":"x"}`, "x", true),
		Entry("the last of a name", `{"output":"a","output":"b"}`, "b", false),
		Entry("the last error", `{"error":"a","error":"b"}`, "b", true),
		Entry("an object output, canonical", `{"output":{"b":1,"a":[1, 2]}}`, `{"a":[1,2],"b":1}`, false),
		Entry("a number as written", `{"output":12.50}`, "12.50", false),
		Entry("a null output", `{"output":null}`, "", false),
		Entry("a string with escapes", `{"output":"\u00e9\n"}`, "é\n", false),
		Entry("neither: the whole response", `{"z":"q","other":1}`, `{"other":1,"z":"q"}`, false),
		Entry("none", `null`, "", false),
	)

	It("reads the system instruction, the function declarations as JSON Schemas in one spelling, and every other member as a setting", func() {
		c := decode(`{
			"systemInstruction":{"role":"user","parts":[{"text":"Be "},{"text":"brief."}]},
			"contents":[{"parts":[{"text":"x"}]}],
			"tools":[
				{"functionDeclarations":[
					{"name":"lookup","description":"Look up.","parametersJsonSchema":{"type":"object","properties":{"key":{"type":"string"}}}},
					{"name":"old","parameters":{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true},"l":{"type":"ARRAY","items":{"type":"STRING"}},"u":{"anyOf":[{"type":"STRING"},{"type":"NUMBER"}]}},"required":["n"]}},
					{"name":"ping"}
				]},
				{"googleSearch":{}}
			],
			"generationConfig":{"temperature":0.2},
			"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}
		}`)
		Expect(c.System).To(Equal("Be brief."))
		Expect(c.Messages).To(Equal([]session.Message{{Role: session.RoleUser, Content: []session.Part{text("x")}}}))
		Expect(c.Tools).To(Equal([]llm.ToolSpec{
			{Name: "lookup", Description: "Look up.", Parameters: json.RawMessage(`{"properties":{"key":{"type":"string"}},"type":"object"}`)},
			{Name: "old", Parameters: json.RawMessage(`{"properties":{"l":{"items":{"type":"string"},"type":"array"},"n":{"type":["integer","null"]},"u":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["n"],"type":"object"}`)},
			{Name: "ping"},
		}))
		Expect(c.Settings).To(HaveLen(3))
		Expect(c.Settings["generationConfig"]).To(MatchJSON(`{"temperature":0.2}`))
		Expect(c.Settings["toolConfig"]).To(MatchJSON(`{"functionCallingConfig":{"mode":"ANY"}}`))
		Expect(c.Settings["tools"]).To(ContainSubstring(`"parameters":{"type":"OBJECT"`), "OpenAPI parameters: every tool, as sent")
	})

	DescribeTable("refuses what it cannot record, naming where",
		func(body, want string) {
			_, err := gemini.DecodeRequest([]byte(body))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("not JSON", `{"contents":`, "the body is not a JSON object"),
		Entry("an unknown role", `{"contents":[{"role":"system","parts":[{"text":"x"}]}]}`, `contents[0]: unknown role "system"; want user or model`),
		Entry("inline data in a model content", `{"contents":[{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`, `contents[0].parts[0]: a "inlineData" part: agentsnap does not record it yet`),
		Entry("a function call from the user", `{"contents":[{"role":"user","parts":[{"functionCall":{"name":"f"}}]}]}`, "contents[0].parts[0]: a functionCall in a user content"),
		Entry("a function response from the model", `{"contents":[{"role":"model","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[0].parts[0]: a functionResponse in a model content"),
		Entry("args that are not an object", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":"x"}}]}]}`, "contents[0].parts[0]: functionCall.args is not a JSON object"),
		Entry("a response that is not an object", `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":[1]}}]}]}`, "contents[0].parts[0]: functionResponse.response: want a JSON object"),
		Entry("both kinds of parameters", `{"contents":[],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT"},"parametersJsonSchema":{"type":"object"}}]}]}`, "tools[0].functionDeclarations[0] (f): both parameters and parametersJsonSchema"),
		Entry("a system instruction that is not text", `{"contents":[],"systemInstruction":{"parts":[{"inlineData":{}}]}}`, "systemInstruction.parts[0]: only text parts"),
	)
})

// written returns the events a stream writer wrote for chunks.
func written(chunks []session.Chunk) []string {
	GinkgoHelper()
	rec := httptest.NewRecorder()
	Expect(gemini.WriteStream(rec, gemini.Answer{Model: "m", ResponseID: "r"}, slices.Values(chunks))).To(Succeed())
	Expect(rec.Header().Get("Content-Type")).To(Equal("text/event-stream"))
	body := rec.Body.String()
	Expect(body).To(HaveSuffix("\n\n"))
	var out []string
	for ev := range strings.SplitSeq(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		Expect(ev).To(HavePrefix("data: "), "every event is one data line")
		Expect(ev).NotTo(ContainSubstring("\n"), "every event is one data line")
		out = append(out, strings.TrimPrefix(ev, "data: "))
	}
	return out
}

func msg(parts ...session.Part) session.Message {
	return session.Message{Role: session.RoleAssistant, Content: parts}
}

// streamed is the chunks a recording holds for parts, their meta on the
// block-ends, before the usage and the finish.
func streamed(parts ...session.Part) []session.Chunk {
	chunks := llm.StreamMessage(msg(parts...), nil, "")
	chunks = chunks[:len(chunks)-1]
	for i := range chunks {
		if c := &chunks[i]; c.Type == session.ChunkBlockEnd {
			c.Block.Meta = parts[c.Index].Meta
		}
	}
	return chunks
}

var _ = Describe("writing an answer", func() {
	It("streams each part in an event of its own, the last with the finishReason and the usage, a signature on its block's last part", func() {
		chunks := append(streamed(
			session.Part{Type: session.PartReasoning, Text: "Hmm.", Meta: gemini.Meta("c2lnLTE=")},
			session.Part{Type: session.PartText, Text: "Hello world"},
		), session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 10, OutputTokens: 7, ReasoningTokens: new(2)}}, session.Finish(session.FinishStop))
		Expect(written(chunks)).To(Equal([]string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hmm.","thought":true,"thoughtSignature":"c2lnLTE="}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":" world"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"thoughtsTokenCount":2,"totalTokenCount":17},"modelVersion":"m","responseId":"r"}`,
		}))
	})

	It("puts the signature of a block whose last part went out before on a part of its own", func() {
		Expect(written([]session.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockReasoning},
			{Type: session.ChunkReasoningDelta, Index: 0, Text: "a"},
			{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockText},
			{Type: session.ChunkTextDelta, Index: 1, Text: "b"},
			{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockReasoning, Text: "a", Meta: gemini.Meta("c2ln")}},
			{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockText, Text: "b"}},
			session.Finish(session.FinishStop),
		})).To(Equal([]string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"a","thought":true}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"b"}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"c2ln"}]},"finishReason":"STOP","index":0}],"modelVersion":"m","responseId":"r"}`,
		}))
	})

	It("sends each function call whole, with its id and signature, and STOP after them", func() {
		Expect(written(append(streamed(
			session.Part{Type: session.PartToolCall, ID: "call_f", Name: "subagent_fork", Arguments: `{"prompt":"Who?"}`, Meta: gemini.Meta("c2ln")},
			session.Part{Type: session.PartToolCall, ID: "call_s", Name: "ping"},
		), session.Finish(session.FinishToolCalls)))).To(Equal([]string{
			`{"candidates":[{"content":{"role":"model","parts":[{"thoughtSignature":"c2ln","functionCall":{"id":"call_f","name":"subagent_fork","args":{"prompt":"Who?"}}}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_s","name":"ping","args":{}}}]},"finishReason":"STOP","index":0}],"modelVersion":"m","responseId":"r"}`,
		}))
	})

	It("answers an empty answer with an empty text part, and max-tokens with MAX_TOKENS", func() {
		Expect(written([]session.Chunk{session.Finish(session.FinishMaxTokens)})).To(Equal([]string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"MAX_TOKENS","index":0}],"modelVersion":"m","responseId":"r"}`,
		}))
	})

	It("ends a failed call with an error event in the API's shape, its status the recorded one, and an aborted one with no finish at all", func() {
		failed := session.ErrorFinish("RATE_LIMIT", "slow down")
		Expect(written(append(streamed(text("par")), failed))).To(Equal([]string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"par"}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}`,
		}))
		failed.Reason.Failure.Status = 503
		Expect(written([]session.Chunk{failed})).To(Equal([]string{`{"error":{"code":503,"message":"slow down","status":"UNAVAILABLE"}}`}))
		rec := httptest.NewRecorder()
		Expect(gemini.WriteStream(rec, gemini.Answer{}, slices.Values([]session.Chunk{{Type: session.ChunkTextDelta, Text: "cut"}, session.Finish(session.FinishAborted)}))).To(Succeed())
		Expect(rec.Body.String()).To(BeEmpty())
	})

	It("refuses to stream a tool call whose arguments are not an object, with an error event", func() {
		rec := httptest.NewRecorder()
		err := gemini.WriteStream(rec, gemini.Answer{}, slices.Values(llm.StreamMessage(msg(session.Part{Type: session.PartToolCall, ID: "c1", Name: "f", Arguments: "[1]"}), nil, "")))
		Expect(err).To(MatchError(ContainSubstring("gemini: tool call c1 (f) has arguments that are not a JSON object")))
		Expect(rec.Body.String()).To(HavePrefix(`data: {"error":{"code":500,"message":"gemini: tool call c1 (f)`))
	})

	It("refuses a whole answer with a tool call whose arguments are not an object as a 500 no SDK retries", func() {
		rec := httptest.NewRecorder()
		err := gemini.WriteMessage(rec, gemini.Answer{}, msg(session.Part{Type: session.PartToolCall, ID: "c1", Name: "f", Arguments: "[1]"}), nil, &session.FinishReason{Kind: session.FinishToolCalls})
		Expect(err).To(MatchError(ContainSubstring("gemini: tool call c1 (f) has arguments that are not a JSON object")))
		Expect(rec.Code).To(Equal(500))
		Expect(rec.Header().Get("X-Should-Retry")).To(Equal("false"))
	})

	It("writes a whole answer as one content, and a failure as an error body with an integer code", func() {
		rec := httptest.NewRecorder()
		Expect(gemini.WriteMessage(rec, gemini.Answer{Model: "m", ResponseID: "r"}, msg(text("Hi"), session.Part{Type: session.PartToolCall, ID: "c1", Name: "f", Arguments: `{"a":1}`}), &session.Usage{InputTokens: 3, OutputTokens: 2}, &session.FinishReason{Kind: session.FinishToolCalls})).To(Succeed())
		Expect(rec.Body.String()).To(MatchJSON(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"},{"functionCall":{"id":"c1","name":"f","args":{"a":1}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5},"modelVersion":"m","responseId":"r"}`))

		rec = httptest.NewRecorder()
		Expect(gemini.WriteMessage(rec, gemini.Answer{}, msg(), nil, session.ErrorFinish("AUTH", "bad key").Reason)).To(Succeed())
		Expect(rec.Code).To(Equal(401))
		Expect(rec.Body.String()).To(MatchJSON(`{"error":{"code":401,"message":"bad key","status":"UNAUTHENTICATED"}}`))

		rec = httptest.NewRecorder()
		Expect(gemini.WriteError(rec, 400, "AGENTSNAP", "wire: no")).To(Succeed())
		Expect(rec.Body.String()).To(MatchJSON(`{"error":{"code":400,"message":"wire: no","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"AGENTSNAP","domain":"agentsnap"}]}}`))
	})
})

var _ = Describe("a thought signature's meta", func() {
	It("is what json.Marshal writes of it, and gives the signature back", func() {
		for _, sig := range []string{"c2lnLTE=", "a<b>&c", `q"\/`, "\u2028\u2029", "é\x00\n", "\xff\xfe"} {
			want, err := json.Marshal(map[string]map[string]string{gemini.API: {"thoughtSignature": sig}})
			Expect(err).NotTo(HaveOccurred())
			Expect(string(gemini.Meta(sig))).To(Equal(string(want)), "%q", sig)
			var back string // what encoding/json reads back: each invalid byte a U+FFFD
			quoted, err := json.Marshal(sig)
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(quoted, &back)).To(Succeed())
			Expect(gemini.Signature(gemini.Meta(sig))).To(Equal(back), "%q", sig)
		}
		Expect(gemini.Meta("")).To(BeNil())
	})
})
