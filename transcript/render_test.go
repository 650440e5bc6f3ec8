package transcript_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("rendering state carried from event to event", func() {
	render := func(logs ...*session.Log) string {
		GinkgoHelper()
		text, err := transcript.Render(logs)
		Expect(err).NotTo(HaveOccurred())
		return text
	}
	request := func(b *builder, system, tools string) *builder {
		return b.event(session.TypeRequestHeader, session.RequestHeaderData{Turn: b.turn, Step: b.step, Provider: "p", Model: "m",
			SystemDigest: system, SystemChars: 42, ToolsDigest: tools, ToolNames: []string{"lookup"}})
	}

	It("marks a result recorded only in the step whose tool was recorded", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("Look twice.").
			stepStart().header().assistant(call("c1", "lookup", `{}`)).
			event(session.TypeToolRecorded, session.ToolRecordedData{CallID: "c1", Name: "lookup", Arguments: `{}`, Result: session.ToolOutput{Text: "v"}}).
			result("c1", "v", false).stepEnd().
			stepStart().header().assistant(call("c1", "lookup", `{}`)).
			result("c1", "live", false).stepEnd().
			turnEnd(session.TurnCompleted, "")
		got := render(root.log)
		Expect(got).To(ContainSubstring("    result c1 (recorded): v\n"))
		Expect(got).To(ContainSubstring("    result c1: live\n"))
	})

	It("compares a fork's first call with the last request of its seed, not an earlier one", func() {
		// The parent handed off (another prompt) before the fork: the fork
		// asks under the prompt of the parent's last call, which is no change.
		parent := newLog(session.Header{ID: "root-id"}).turnStart(1, "user").user("Hand off, then fork.")
		parent.stepStart()
		request(parent, "s1", "t1").assistant(session.TextPart("ok")).stepEnd()
		parent.stepStart()
		request(parent, "s2", "t1").assistant(session.TextPart("forking")).stepEnd()
		inherited := len(parent.log.Events)
		parent.turnEnd(session.TurnCompleted, "")
		fork := child("fork-id", "root-id", "call_fork", session.ModeFork, 1).seed(parent, inherited).
			turnStart(2, "subagent").user("Go on.")
		fork.stepStart()
		request(fork, "s2", "t1").assistant(session.TextPart("done")).stepEnd()
		fork.turnEnd(session.TurnCompleted, "")

		got := render(parent.log, fork.log)
		Expect(got).To(ContainSubstring("== session 1: fork of root via call_fork, depth 1 ==\n"))
		_, forkText, _ := strings.Cut(got, "== session 1")
		Expect(forkText).NotTo(ContainSubstring("called with"))
		Expect(got).To(ContainSubstring("    called with another system prompt (42 characters)\n"), "the parent's own handoff shows")
	})

	It("indents an MCP request made after a step ended at the turn's level again", func() {
		mcp := session.MCPCallData{Server: "clock", Method: "tools/call", Params: []byte(`{"name":"now","arguments":{}}`),
			Result: []byte(`{"content":[{"type":"text","text":"12:00"}]}`)}
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("Time?").
			stepStart().header().event(session.TypeMCPCall, mcp).assistant(session.TextPart("asked")).stepEnd().
			event(session.TypeMCPCall, mcp).
			turnEnd(session.TurnCompleted, "")
		Expect(render(root.log)).To(Equal(`== root ==
turn 1 (user)
  user: Time?
  step 1
    mcp clock tools/call now {}: 12:00
    assistant: asked
  mcp clock tools/call now {}: 12:00
  ended completed
`))
	})

})

var _ = Describe("a conversation the agent replaced", func() {
	render := func(d session.HistoryReplaceData) string {
		GinkgoHelper()
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("Compact.").
			event(session.TypeHistoryReplace, d).turnEnd(session.TurnCompleted, "")
		text, err := transcript.Render([]*session.Log{root.log})
		Expect(err).NotTo(HaveOccurred())
		_, after, _ := strings.Cut(text, "  user: Compact.\n")
		body, _, _ := strings.Cut(after, "  ended completed\n")
		return body
	}

	DescribeTable("says how much it kept",
		func(keep int, want string) {
			Expect(render(session.HistoryReplaceData{Turn: 1, Keep: keep})).To(Equal("  history replaced: " + want + " kept, nothing after\n"))
		},
		Entry("none", 0, "no message"),
		Entry("one", 1, "the first message"),
		Entry("several", 3, "the first 3 messages"),
	)

	It("shows the messages sent instead, tool results included", func() {
		got := render(session.HistoryReplaceData{Turn: 1, Keep: 1, Messages: []session.Message{
			{Role: session.RoleUser, Content: []session.Part{session.TextPart("Summary so far.")}},
			{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Looking."), call("c1", "lookup", `{"key":"k"}`)}},
			{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "c1",
				Content: []session.Part{session.TextPart("found")}}}},
		}})
		Expect(got).To(Equal(`  history replaced: the first message kept, then:
    user: Summary so far.
    assistant: Looking.
    call c1 lookup {"key":"k"}
    result c1: found
`))
	})
})

var _ = Describe("an MCP request in the transcript", func() {
	render := func(method, params, result string) string {
		GinkgoHelper()
		d := session.MCPCallData{Server: "srv", Method: method, Params: json.RawMessage(params), Result: json.RawMessage(result)}
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").event(session.TypeMCPCall, d)
		text, err := transcript.Render([]*session.Log{root.log})
		Expect(err).NotTo(HaveOccurred())
		_, line, _ := strings.Cut(text, "turn 1 (user)\n")
		return line
	}

	It("shows a tool call's arguments in canonical form, without _meta", func() {
		Expect(render("tools/call", `{"name":"now","arguments":{"zone":"UTC","_meta":{"progressToken":1},"a":1}}`,
			`{"content":[{"type":"text","text":"12:00"}]}`)).To(Equal("  mcp srv tools/call now {\"a\":1,\"zone\":\"UTC\"}: 12:00\n"))
	})

	It("shows content items by their text, untyped ones as text, others by their type", func() {
		Expect(render("tools/call", `{"name":"snap","arguments":{}}`,
			`{"content":[{"type":"image","data":"AAAA"},{"text":""},{"type":"text","text":"done"}]}`)).
			To(Equal("  mcp srv tools/call snap {}: [image]  done\n"))
	})

	It("names the server an initialize answer gives in _meta", func() {
		Expect(render("initialize", `{}`, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"clock","version":"2.1"}}}`)).
			To(Equal("  mcp srv initialize: clock 2.1\n"))
	})
})
