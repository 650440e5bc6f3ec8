package transcript_test

import (
	"fmt"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// Render turns the logs of an agent tree into the text transcript.golden
// holds: no times, no ids, sessions named by their place in the tree.
func ExampleRender() {
	ev := func(seq int64, typ string, v any) session.Event {
		e, _ := session.NewEvent(typ, v)
		e.Seq = seq
		return e
	}
	root := &session.Log{Header: session.Header{ID: "4f1c"}, Events: []session.Event{
		ev(0, session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"}),
		ev(1, session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("Add 2 and 3.")}}),
		ev(2, session.TypeStepStart, session.StepData{Turn: 1, Step: 1}),
		ev(3, session.TypeAssistantMessage, session.AssistantMessageData{Turn: 1, Step: 1, Message: session.Message{
			Role: session.RoleAssistant, Content: []session.Part{session.TextPart("5")}}}),
		ev(4, session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}}),
	}}
	text, err := transcript.Render([]*session.Log{root})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	// Output:
	// == root ==
	// turn 1 (user)
	//   user: Add 2 and 3.
	//   step 1
	//     assistant: 5
	//   ended completed
}
