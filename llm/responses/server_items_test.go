package responses_test

import (
	"github.com/agentsnap/agentsnap/llm/live"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Output items the server ran itself, as OpenAI streams them: a tool
// search (its arguments an object) and what it found.
const (
	toolSearch       = `{"type":"tool_search_call","id":"ts_1","call_id":null,"arguments":{"query":"weather tools"},"execution":"server","status":"completed","created_by":"resp_live"}`
	toolSearchAdded  = `{"type":"tool_search_call","id":"ts_1","call_id":null,"arguments":{},"execution":"server","status":"in_progress"}`
	toolSearchOutput = `{"type":"tool_search_output","id":"tso_1","call_id":null,"execution":"server","status":"completed",` +
		`"tools":[{"type":"function","name":"forecast","description":"The forecast.","parameters":{"type":"object"},"strict":true}]}`
)

// answerText is the text block an answer "Sunny." of item msg_1 makes.
var answerText = []string{
	`{"type":"block-start","index":0,"blockType":"text"}`,
	`{"type":"text-delta","index":0,"text":"Sunny."}`,
	`{"type":"block-end","index":0,"block":{"type":"text","text":"Sunny.","meta":{"openai-responses":{"id":"msg_1"}}}}`,
	`{"type":"usage","usage":{"inputTokens":12,"outputTokens":5,"cacheReadTokens":8,"reasoningTokens":3}}`,
	`{"type":"finish","reason":{"kind":"stop"}}`,
}

var _ = Describe("an output item the server ran itself", func() {
	It("is left out of the log: a server-run tool search, whose arguments are an object, and its output", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			added(0, toolSearchAdded), done(0, toolSearch),
			added(1, toolSearchOutput), done(1, toolSearchOutput),
			added(2, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			textDelta("msg_1", "Sunny."),
			done(2, message("msg_1", "Sunny.")),
			completed(usage, toolSearch, toolSearchOutput, message("msg_1", "Sunny.")),
		))
		Expect(jsonLines(chunks)).To(Equal(answerText))
	})

	// Each item below has a member Item declares of another kind.
	DescribeTable("does not fail the call whatever kind its members are, in whichever event holds it",
		func(item string) {
			msgAdded := added(1, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`)
			msg := message("msg_1", "Sunny.")
			By("added and done, and in the terminal response's output")
			Expect(jsonLines(decode(bg(), sse(created(), added(0, item), done(0, item), msgAdded, textDelta("msg_1", "Sunny."), done(1, msg),
				completed(usage, item, msg))))).To(Equal(answerText))
			By("added only")
			Expect(jsonLines(decode(bg(), sse(created(), added(0, item), msgAdded, textDelta("msg_1", "Sunny."), done(1, msg),
				completed(usage, msg))))).To(Equal(answerText))
			By("done only")
			Expect(jsonLines(decode(bg(), sse(created(), done(0, item), msgAdded, textDelta("msg_1", "Sunny."), done(1, msg),
				completed(usage, msg))))).To(Equal(answerText))
			By("only in the terminal response, of a stream that showed no item")
			Expect(jsonLines(decode(bg(), sse(created(), completed(usage, item, msg))))).To(Equal(answerText))
		},
		Entry("a tool search's arguments, an object", toolSearch),
		Entry("a status that is an object", `{"type":"web_search_call","id":"ws_1","action":{"type":"search","query":"q"},"status":{"state":"completed"}}`),
		Entry("a name that is an object", `{"type":"mcp_call","id":"mcp_1","name":{"tool":"deploy"},"server_label":"ops","arguments":"{}","output":"ok"}`),
		Entry("arguments that are an array", `{"type":"mcp_call","id":"mcp_2","name":"deploy","server_label":"ops","arguments":["x"],"output":"ok"}`),
		Entry("a call_id that is a number", `{"type":"tool_search_call","id":"ts_2","call_id":7,"arguments":{},"execution":"server","status":"completed"}`),
		Entry("a summary that is a string", `{"type":"compaction","id":"cmp_1","summary":"what came before","encrypted_content":"RU5D"}`),
		Entry("encrypted content that is an object", `{"type":"compaction","id":"cmp_2","encrypted_content":{"v":1}}`),
		Entry("a phase, a role and an id of other kinds", `{"type":"image_generation_call","id":9,"role":[],"phase":{},"result":"","status":"completed"}`),
		Entry("an output that is an object, results and an action", `{"type":"file_search_call","id":"fs_1","queries":["q"],"results":[{"file_id":"f","score":0.5}],"output":{"n":1},"action":{"type":"x"},"status":"completed"}`),
	)

	It("does not fail the call when the terminal response holds members it does not read, of any kind (a prompt template's instructions, an array)", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			textDelta("msg_1", "Sunny."),
			done(0, message("msg_1", "Sunny.")),
			`{"type":"response.completed","response":{"id":"resp_live","object":"response","status":"completed",`+
				`"instructions":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"Be brief."}]}],`+
				`"prompt":{"id":"pmpt_1","version":"2"},"tools":[{"type":"tool_search"}],"output":[`+message("msg_1", "Sunny.")+`],"usage":`+usage+`}}`,
		))
		Expect(jsonLines(chunks)).To(Equal(answerText))
	})

	It("still refuses a tool search the client must run", func(ctx SpecContext) {
		item := `{"type":"tool_search_call","id":"ts_1","call_id":"call_ts","arguments":{"query":"weather tools"},"execution":"client","status":"completed"}`
		chunks := decode(ctx, sse(created(), added(0, toolSearchAdded), done(0, toolSearch), added(1, item)))
		Expect(last(chunks).Failure).NotTo(BeNil())
		Expect(last(chunks).Failure.Code).To(Equal(live.CodeBadStream))
		Expect(last(chunks).Failure.Message).To(HavePrefix(`openai-responses: stream event 4: the model asked the client to search its tools (call "call_ts"`))
	})

	DescribeTable("still fails on an item it records whose member is of another kind, or one whose type is no string",
		func(item, says string) {
			chunks := decode(bg(), sse(created(), added(0, item)))
			Expect(last(chunks).Failure).NotTo(BeNil())
			Expect(last(chunks).Failure.Code).To(Equal(live.CodeBadStream))
			Expect(last(chunks).Failure.Message).To(HavePrefix("openai-responses: stream event 2 is not a response.output_item.added event (" + says + "); it starts "))
		},
		Entry("a function call's arguments, an object", `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":{}}`,
			`json: cannot unmarshal object into Go struct field event.item.arguments of type string`),
		Entry("a type that is a number", `{"type":5,"id":"x_1"}`,
			`json: cannot unmarshal number into Go struct field event.item.type of type string`),
	)
})
