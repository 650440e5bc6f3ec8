package persistence_test

import (
	"fmt"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// A process died while a tool ran: the log ends with the call unanswered.
// Closers answers it with an error, ends the step and the turn.
func ExampleClosers() {
	var events []session.Event
	add := func(typ string, payload any) {
		e, _ := session.NewEvent(typ, payload)
		e.Seq, e.Time = int64(len(events)), 1000
		events = append(events, e)
	}
	add(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	add(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
	add(session.TypeToolCall, session.ToolCallData{Turn: 1, Step: 1, CallID: "call_1", Name: "bash", Arguments: `{}`})

	for _, e := range persistence.Closers(events) {
		fmt.Println(e.Seq, e.Type, string(e.Data))
	}
	// Output:
	// 3 tool/result {"turn":1,"step":1,"message":{"role":"tool","content":[{"type":"tool-result","toolCallId":"call_1","name":"bash","content":[{"type":"text","text":"interrupted: the session stopped before this tool call returned"}],"isError":true}]}}
	// 4 step/end {"turn":1,"step":1}
	// 5 turn/end {"turn":1,"reason":{"kind":"interrupted","message":"the session stopped before the turn ended"}}
}
