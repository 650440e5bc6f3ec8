package persistence

import (
	"github.com/agentsnap/agentsnap/session"
)

// Texts of the closing events, fixed so that a repaired log's bytes do not
// depend on when it was repaired.
const (
	InterruptedResult = "interrupted: the session stopped before this tool call returned"
	InterruptedTurn   = "the session stopped before the turn ended"
)

// Closers returns the events that close an interrupted turn at the end of
// events, or nil when the last turn ended (or none started):
//
//   - a tool/result with an error tool-result part for every tool call of
//     the turn that has no result yet (calls seen in tool/call events and in
//     the tool-call parts of assistant/message events, first seen first), so
//     a resumed conversation never holds a call without its answer;
//   - a step/end for the step still open, if any;
//   - a turn/end with reason {kind: interrupted}.
//
// Their seqs continue events; their time is the last event's time, so the
// closers of a log are the same whenever they are computed.
func Closers(events []session.Event) []session.Event {
	start := openTurnStart(events)
	if start < 0 {
		return nil
	}
	o := scanOpenTurn(events[start:])
	last := events[len(events)-1]
	var out []session.Event
	add := func(typ string, payload any) {
		e, err := session.NewEvent(typ, payload)
		if err != nil {
			// The payloads are session's own types; they always encode.
			panic(err)
		}
		e.Seq, e.Time = last.Seq+1+int64(len(out)), last.Time
		out = append(out, e)
	}
	for _, c := range o.calls {
		if o.answered[c.id] {
			continue
		}
		add(session.TypeToolResult, session.ToolResultData{Turn: o.turn, Step: c.step, Message: session.Message{
			Role: session.RoleTool,
			Content: []session.Part{{
				Type:       session.PartToolResult,
				ToolCallID: c.id,
				Name:       c.name,
				Content:    []session.Part{session.TextPart(InterruptedResult)},
				IsError:    true,
			}},
		}})
	}
	if o.stepOpen {
		add(session.TypeStepEnd, session.StepData{Turn: o.turn, Step: o.step})
	}
	add(session.TypeTurnEnd, session.TurnEndData{Turn: o.turn, Reason: session.EndReason{Kind: session.TurnInterrupted, Message: InterruptedTurn}})
	return out
}

// openTurnStart returns the index of the last turn/start when no turn/end
// follows it, or -1.
func openTurnStart(events []session.Event) int {
	for i := len(events) - 1; i >= 0; i-- {
		switch events[i].Type {
		case session.TypeTurnEnd:
			return -1
		case session.TypeTurnStart:
			return i
		}
	}
	return -1
}

type openCall struct {
	id, name string
	step     int
}

// openTurn is what an interrupted turn left unfinished.
type openTurn struct {
	turn     int
	step     int // the last step started
	stepOpen bool
	calls    []openCall
	answered map[string]bool
}

// scanOpenTurn walks the events of one open turn, from its turn/start.
func scanOpenTurn(events []session.Event) *openTurn {
	o := &openTurn{answered: map[string]bool{}}
	o.turn, _, _ = session.TurnStep(&events[0])
	seen := map[string]bool{}
	addCall := func(id, name string, step int) {
		if id != "" && !seen[id] {
			seen[id] = true
			o.calls = append(o.calls, openCall{id: id, name: name, step: step})
		}
	}
	for i := range events {
		e := &events[i]
		switch e.Type {
		case session.TypeStepStart:
			_, o.step, _ = session.TurnStep(e)
			o.stepOpen = true
		case session.TypeStepEnd:
			o.stepOpen = false
		case session.TypeToolCall:
			var d session.ToolCallData
			if e.Decode(&d) == nil {
				addCall(d.CallID, d.Name, d.Step)
			}
		case session.TypeAssistantMessage:
			var d session.AssistantMessageData
			if e.Decode(&d) == nil {
				for _, p := range d.Message.ToolCalls() {
					addCall(p.ID, p.Name, d.Step)
				}
			}
		case session.TypeToolResult:
			var d session.ToolResultData
			if e.Decode(&d) == nil {
				for _, p := range d.Message.Content {
					if p.Type == session.PartToolResult {
						o.answered[p.ToolCallID] = true
					}
				}
			}
		}
	}
	return o
}
