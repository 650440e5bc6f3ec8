package responses_test

import (
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// customCall is a call of OpenAI's custom tool "apply_diff" as an output
// item.
const customCall = `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_c1","name":"apply_diff","input":"--- a/x","status":"completed"}`

var _ = Describe("an output item the client must act on, other than a function call", func() {
	It("ends the stream with a BAD_STREAM finish naming the event, the tool, the item type and what to do", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(),
			added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
			textDelta("msg_1", "Patching."),
			done(0, message("msg_1", "Patching.")),
			added(1, `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_c1","name":"apply_diff","input":"","status":"in_progress"}`),
			`{"type":"response.custom_tool_call_input.delta","item_id":"ctc_1","output_index":1,"delta":"--- a/x"}`,
			done(1, customCall),
			completed(usage, message("msg_1", "Patching."), customCall),
		))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Patching."}`,
			`{"type":"block-end","index":0,"block":{"type":"text","text":"Patching.","meta":{"openai-responses":{"id":"msg_1"}}}}`,
			`{"type":"finish","reason":{"kind":"error","failure":{"message":"openai-responses: stream event 5: the model called \"apply_diff\", ` +
				`a custom tool (call \"call_c1\", output item of type \"custom_tool_call\"); agentsnap records function calls only: ` +
				`give the agent that tool as a function tool","code":"BAD_STREAM"}}}`,
		}))
		Expect(live.InfrastructureFailure(last(chunks).Failure.Code)).To(BeTrue(), "a recording refuses to keep it")
	})

	DescribeTable("refuses each kind when it is added",
		func(item, says string) {
			chunks := decode(bg(), sse(created(), added(0, item), done(0, item), completed(usage, item)))
			Expect(last(chunks).Failure).NotTo(BeNil())
			Expect(last(chunks).Failure.Code).To(Equal(live.CodeBadStream))
			Expect(last(chunks).Failure.Message).To(HavePrefix("openai-responses: stream event 2: " + says))
		},
		Entry("a custom tool's call", customCall, `the model called "apply_diff", a custom tool`),
		Entry("a computer call", `{"type":"computer_call","id":"cu_1","call_id":"call_cu","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"}`,
			`the model called the built-in computer tool, which the client runs (call "call_cu", output item of type "computer_call"); agentsnap records function calls only: give the agent that tool as a function tool`),
		Entry("a local shell call", `{"type":"local_shell_call","id":"ls_1","call_id":"call_ls","action":{"type":"exec","command":["ls"]},"status":"completed"}`,
			`the model called the built-in local_shell tool`),
		Entry("a shell call", `{"type":"shell_call","id":"sh_1","call_id":"call_sh","action":{"commands":["ls"]},"status":"completed"}`,
			`the model called the built-in shell tool`),
		Entry("an apply_patch call", `{"type":"apply_patch_call","id":"ap_1","call_id":"call_ap","operation":{"type":"update_file","path":"x","diff":""},"status":"completed"}`,
			`the model called the built-in apply_patch tool`),
		Entry("an MCP approval request", `{"type":"mcp_approval_request","id":"mcpr_1","name":"deploy","server_label":"ops","arguments":"{}"}`,
			`the model asked the client to approve a call of "deploy" on MCP server "ops" (output item of type "mcp_approval_request"); `+
				`agentsnap records function calls only: set require_approval to "never" on that MCP tool`),
		Entry("a tool search the client runs", `{"type":"tool_search_call","id":"ts_1","call_id":"call_ts","arguments":{},"execution":"client","status":"completed"}`,
			`the model asked the client to search its tools (call "call_ts", output item of type "tool_search_call", execution "client")`),
		Entry("a call of a type yet unknown", `{"type":"teleport_call","id":"tp_1","call_id":"call_tp","name":"beam","status":"completed"}`,
			`the model called "beam", a tool the client runs (call "call_tp", output item of type "teleport_call")`),
		Entry("a nameless call of a type yet unknown", `{"type":"warp\n_call","id":"wp_1","call_id":"call_wp","status":"completed"}`,
			`the model called a tool the client runs (call "call_wp", output item of type "warp\n_call"); agentsnap records function calls only: give the agent that tool as a function tool`),
	)

	It("refuses one a stream shows only when it is done", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(), done(0, customCall), completed(usage, customCall)))
		Expect(last(chunks).Failure).NotTo(BeNil())
		Expect(last(chunks).Failure.Message).To(HavePrefix(`openai-responses: stream event 2: the model called "apply_diff", a custom tool`))
	})

	It("refuses one only the terminal response holds, after a function call the stream showed", func(ctx SpecContext) {
		fc := call("fc_1", "call_f", "f", `{}`)
		chunks := decode(ctx, sse(created(), added(0, fc), done(0, fc), completed(usage, fc, customCall)))
		Expect(last(chunks).Failure).NotTo(BeNil())
		Expect(last(chunks).Failure.Code).To(Equal(live.CodeBadStream))
		Expect(last(chunks).Failure.Message).To(HavePrefix(`openai-responses: stream event 4: the model called "apply_diff", a custom tool`))
	})

	DescribeTable("refuses one in an event that is malformed elsewhere, rather than naming the decode error",
		func(event, says string) {
			chunks := decode(bg(), sse(created(), event))
			Expect(last(chunks).Failure).NotTo(BeNil())
			Expect(last(chunks).Failure.Code).To(Equal(live.CodeBadStream))
			Expect(last(chunks).Failure.Message).To(HavePrefix("openai-responses: stream event 2: " + says))
		},
		Entry("a terminal response whose function call's arguments are an object",
			`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[`+
				`{"type":"function_call","id":"fc_1","call_id":"call_f","name":"f","arguments":{}},`+customCall+`]}}`,
			`the model called "apply_diff", a custom tool (call "call_c1", output item of type "custom_tool_call"); agentsnap records function calls only`),
		Entry("an added item whose event has an item_id of the wrong kind",
			`{"type":"response.output_item.added","output_index":0,"item_id":3,"item":`+customCall+`}`,
			`the model called "apply_diff", a custom tool`),
		Entry("a done item whose own call_id is of the wrong kind",
			`{"type":"response.output_item.done","output_index":0,"item_id":3,"item":{"type":"computer_call","id":"cu_1","call_id":9,"action":{}}}`,
			`the model called the built-in computer tool, which the client runs (output item of type "computer_call")`),
	)

	It("names the decode error of a malformed event that asks nothing of the client, as before", func(ctx SpecContext) {
		chunks := decode(ctx, sse(created(), `{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[`+
			`{"type":"function_call","id":"fc_1","call_id":"call_f","name":"f","arguments":{}}]}}`))
		Expect(last(chunks).Failure).NotTo(BeNil())
		Expect(last(chunks).Failure.Message).To(HavePrefix("openai-responses: stream event 2 is not a response.completed event ("))
	})

	It("keeps the calls the server ran itself out of the log, as before", func(ctx SpecContext) {
		items := []string{
			`{"type":"web_search_call","id":"ws_1","action":{"type":"search","query":"q"},"status":"completed"}`,
			`{"type":"file_search_call","id":"fs_1","queries":["q"],"status":"completed"}`,
			`{"type":"code_interpreter_call","id":"ci_1","code":"1+1","container_id":"c","outputs":[],"status":"completed"}`,
			`{"type":"image_generation_call","id":"ig_1","result":"","status":"completed"}`,
			`{"type":"mcp_call","id":"mcp_1","name":"deploy","server_label":"ops","arguments":"{}","output":"ok"}`,
			`{"type":"mcp_list_tools","id":"mcpl_1","server_label":"ops","tools":[]}`,
			message("msg_1", "Done."),
		}
		var evs []string
		for i, it := range items {
			evs = append(evs, added(i, it), done(i, it))
		}
		chunks := decode(ctx, sse(append(append([]string{created()}, evs...), completed(usage, items...))...))
		Expect(last(chunks).Kind).To(Equal(session.FinishStop))
		Expect(jsonLines(chunks)).To(ContainElement(`{"type":"block-end","index":0,"block":{"type":"text","text":"Done.","meta":{"openai-responses":{"id":"msg_1"}}}}`))
	})
})
