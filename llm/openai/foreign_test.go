package openai_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// customCall is the first fragment of a call of OpenAI's custom tool
// "apply_diff", as Chat Completions streams it.
const customCall = `{"tool_calls":[{"index":0,"id":"call_c1","type":"custom","custom":{"name":"apply_diff","input":""}}]}`

var _ = Describe("a streamed tool call of a type other than function", func() {
	It("ends the stream with a BAD_STREAM finish naming the frame, the tool, its type and what to do", func(ctx SpecContext) {
		p := newProvider(streaming(
			chunk(`{"role":"assistant","content":"Patching."}`, "null"),
			chunk(customCall, "null"),
			chunk(`{"tool_calls":[{"index":0,"custom":{"input":"--- a/x"}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`)))
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Patching."}`,
			`{"type":"finish","reason":{"kind":"error","failure":{"message":"openai: stream frame 2: the model called \"apply_diff\", ` +
				`a tool of type \"custom\" (call \"call_c1\"); agentsnap records function calls only: ` +
				`give the agent that tool as a function tool","code":"BAD_STREAM"}}}`,
		}))
		By("recording no tool-call block for it")
		for _, c := range chunks {
			Expect(c.BlockType).NotTo(Equal(session.BlockToolCall))
		}
		Expect(openai.InfrastructureFailure(last(chunks).Failure.Code)).To(BeTrue(), "a recording refuses to keep it")
	})

	DescribeTable("is refused whatever else the frame holds",
		func(frame, says string) {
			chunks := openai.DecodeBody(context.Background(), strings.NewReader("data: "+frame+"\n\ndata: [DONE]\n\n"))
			Expect(last(chunks).Failure.Code).To(Equal(openai.CodeBadStream))
			Expect(last(chunks).Failure.Message).To(ContainSubstring(says))
		},
		Entry("after a function call in the same frame", chunk(`{"tool_calls":[{"index":0,"id":"call_f","type":"function","function":{"name":"f","arguments":"{}"}},`+
			`{"index":1,"id":"call_c","type":"custom","custom":{"name":"grep","input":"x"}}]}`, `"tool_calls"`),
			`stream frame 1: the model called "grep", a tool of type "custom" (call "call_c")`),
		Entry("beside a function call whose arguments are of the wrong kind", chunk(`{"tool_calls":[{"index":0,"id":"call_f","type":"function","function":{"name":"f","arguments":5}},`+
			`{"index":1,"id":"call_c","type":"custom","custom":{"name":"grep","input":"x"}}]}`, `"tool_calls"`),
			`stream frame 1: the model called "grep", a tool of type "custom" (call "call_c"); agentsnap records function calls only`),
		Entry("in a frame whose content is of the wrong kind", chunk(`{"tool_calls":[{"index":0,"id":"call_c","type":"custom","custom":{"name":"grep","input":"x"}}],"content":7}`, `"tool_calls"`),
			`stream frame 1: the model called "grep", a tool of type "custom" (call "call_c"); agentsnap records function calls only`),
		Entry("without an id or a name", chunk(`{"tool_calls":[{"index":0,"type":"custom"}]}`, `"tool_calls"`),
			`stream frame 1: the model called a tool of type "custom"; agentsnap records function calls only`),
		Entry("of a type yet unknown", chunk(`{"tool_calls":[{"index":0,"id":"c","type":"shell","shell":{"name":"sh"}}]}`, "null"),
			`the model called "sh", a tool of type "shell" (call "c")`),
	)

	It("keeps what to do whole when the name and id quoted before it fill the message's bound", func() {
		long := strings.Repeat(`\u0001`, 60)
		chunks := openai.DecodeBody(context.Background(), strings.NewReader("data: "+
			chunk(`{"tool_calls":[{"index":0,"id":"`+long+`","type":"custom","custom":{"name":"`+long+`"}}]}`, "null")+"\n\ndata: [DONE]\n\n"))
		f := last(chunks).Failure
		Expect(f.Message).To(HaveSuffix("…; agentsnap records function calls only: give the agent that tool as a function tool"))
		Expect(live.Unrecordable(f)).To(BeTrue(), "a recording tells it from a broken stream")
	})

	It("leaves a call with no type, as some servers send, a function call", func() {
		chunks := openai.DecodeBody(context.Background(), strings.NewReader("data: "+
			chunk(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}`, `"tool_calls"`)+"\n\ndata: [DONE]\n\n"))
		Expect(last(chunks).Kind).To(Equal(session.FinishToolCalls))
	})
})
