package transcript_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("recorded tools", func() {
	mcp := func(method, params, result string) session.MCPCallData {
		d := session.MCPCallData{Server: "clock", Method: method, Params: json.RawMessage(params)}
		if result != "" {
			d.Result = json.RawMessage(result)
		}
		return d
	}

	It("marks the results of recorded tools and shows each MCP request with its answer", func() {
		failed := mcp("tools/call", `{"name":"now","arguments":{"zone":"Mars"}}`, "")
		failed.Error = &session.MCPError{Code: -32602, Message: "unknown zone"}
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("What time is it?").
			event(session.TypeMCPCall, mcp("initialize", `{"protocolVersion":"2025-06-18"}`, `{"serverInfo":{"name":"clock","version":"1.0"}}`)).
			event(session.TypeMCPCall, mcp("tools/list", `{}`, `{"tools":[{"name":"now"},{"name":"zones"}]}`)).
			stepStart().header().
			assistant(call("c1", "lookup", `{"key":"x"}`), call("c2", "now", `{}`)).
			event(session.TypeMCPCall, mcp("tools/call", `{"name":"now","arguments":{}}`, `{"content":[{"type":"text","text":"12:00"}]}`)).
			event(session.TypeMCPCall, failed).
			event(session.TypeMCPCall, mcp("resources/read", `{"uri":"clock://zones"}`, `{"contents":[{"uri":"clock://zones","text":"UTC"}]}`)).
			event(session.TypeMCPCall, mcp("prompts/get", `{"name":"p"}`, `{"messages":[]}`)).
			event(session.TypeToolRecorded, session.ToolRecordedData{CallID: "c1", Name: "lookup", Arguments: `{"key":"x"}`, Result: session.ToolOutput{Text: "v"}}).
			result("c1", "v", false).
			result("c2", "12:00", false).
			stepEnd().
			stepStart().header().
			event(session.TypeToolRecorded, session.ToolRecordedData{CallID: "c1", Name: "lookup", Result: session.ToolOutput{Text: "gone", IsError: true}}).
			result("c1", "gone", true).
			stepEnd().
			turnEnd(session.TurnCompleted, "")
		got, err := transcript.Render([]*session.Log{root.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`== root ==
turn 1 (user)
  user: What time is it?
  mcp clock initialize: clock 1.0
  mcp clock tools/list: now, zones
  step 1
    call c1 lookup {"key":"x"}
    call c2 now {}
    mcp clock tools/call now {}: 12:00
    mcp clock tools/call {"arguments":{"zone":"Mars"},"name":"now"}: error -32602: unknown zone
    mcp clock resources/read clock://zones: UTC
    mcp clock prompts/get {"name":"p"}: {"messages":[]}
    result c1 (recorded): v
    result c2: 12:00
  step 2
    result c1 (recorded, error): gone
  ended completed
`))
	})
})
