package llm_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// StreamMessage turns an authored assistant message into the chunks a live
// provider would have streamed, usage and finish included.
func ExampleStreamMessage() {
	m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{
		session.TextPart("Let me check."),
		{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`},
	}}
	for _, c := range llm.StreamMessage(m, &session.Usage{InputTokens: 12, OutputTokens: 9}, "") {
		b, _ := json.Marshal(c)
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"block-start","index":0,"blockType":"text"}
	// {"type":"text-delta","index":0,"text":"Let"}
	// {"type":"text-delta","index":0,"text":" me"}
	// {"type":"text-delta","index":0,"text":" check."}
	// {"type":"block-end","index":0,"block":{"type":"text","text":"Let me check."}}
	// {"type":"block-start","index":1,"blockType":"tool-call"}
	// {"type":"tool-call-delta","index":1,"id":"call_1","name":"lookup","argumentsDelta":"{\"key\":\""}
	// {"type":"tool-call-delta","index":1,"argumentsDelta":"release\""}
	// {"type":"tool-call-delta","index":1,"argumentsDelta":"}"}
	// {"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_1","name":"lookup","arguments":"{\"key\":\"release\"}"}}
	// {"type":"usage","usage":{"inputTokens":12,"outputTokens":9}}
	// {"type":"finish","reason":{"kind":"tool-calls"}}
}
