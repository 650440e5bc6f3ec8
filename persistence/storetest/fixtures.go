package storetest

import (
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/session"
)

// T0 is the createdAt of the fixture root session and the time of its first
// event (epoch milliseconds).
const T0 int64 = 1_767_225_600_000

// Event returns an event of type typ with payload encoded as its data, at
// seq, timed 10 ms per seq after T0. It panics if payload does not encode
// as JSON, which a fixture's fixed Go payload always does: the panic is a
// bug in the test that calls it, not a failure of a store.
func Event(seq int64, typ string, payload any) session.Event {
	e, err := session.NewEvent(typ, payload)
	if err != nil {
		panic(fmt.Sprintf("storetest: Event(%d, %q, %T): the payload does not encode as JSON: %v", seq, typ, payload, err))
	}
	e.Seq, e.Time = seq, T0+10*seq
	return e
}

// builder appends fixture events with consecutive seqs.
type builder struct {
	seq    int64
	events []session.Event
}

func (b *builder) add(typ string, payload any) *builder {
	b.events = append(b.events, Event(b.seq, typ, payload))
	b.seq++
	return b
}

func (b *builder) chunk(turn, step int, c session.Chunk) *builder {
	return b.add(session.TypeAssistantChunk, session.ChunkData{Turn: turn, Step: step, Attempt: 1, Chunk: c})
}

// CompletedTurn returns one completed user turn starting at seq: a prompt,
// a streamed answer and turn/end {kind: completed}.
func CompletedTurn(seq int64, turn int, prompt, answer string) []session.Event {
	b := &builder{seq: seq}
	b.add(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"}).
		add(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(prompt)}}).
		add(session.TypeStepStart, session.StepData{Turn: turn, Step: 1}).
		chunk(turn, 1, session.Chunk{Type: session.ChunkTextDelta, Text: answer}).
		chunk(turn, 1, session.Finish(session.FinishStop)).
		add(session.TypeAssistantMessage, session.AssistantMessageData{Turn: turn, Step: 1, Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(answer)}}}).
		add(session.TypeStepEnd, session.StepData{Turn: turn, Step: 1}).
		add(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
	return b.events
}

// ToolTurn returns a turn starting at seq in two parts: started, what the
// runtime flushes before it runs two tool calls (call_a and call_b), and
// finished, the results and the rest of the turn.
func ToolTurn(seq int64, turn int) (started, finished []session.Event) {
	b := &builder{seq: seq}
	calls := []session.Part{
		{Type: session.PartToolCall, ID: "call_a", Name: "read", Arguments: `{"path":"a.txt"}`},
		{Type: session.PartToolCall, ID: "call_b", Name: "read", Arguments: `{"path":"b.txt"}`},
	}
	b.add(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"}).
		add(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("read both files")}}).
		add(session.TypeStepStart, session.StepData{Turn: turn, Step: 1}).
		add(session.TypeAssistantMessage, session.AssistantMessageData{Turn: turn, Step: 1, Message: session.Message{Role: session.RoleAssistant, Content: calls}})
	for _, c := range calls {
		b.add(session.TypeToolCall, session.ToolCallData{Turn: turn, Step: 1, CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	n := len(b.events)
	for _, c := range calls {
		b.add(session.TypeToolResult, session.ToolResultData{Turn: turn, Step: 1, Message: session.Message{Role: session.RoleTool, Content: []session.Part{{
			Type: session.PartToolResult, ToolCallID: c.ID, Name: c.Name, Content: []session.Part{session.TextPart("contents of " + c.ID)},
		}}}})
	}
	b.add(session.TypeStepEnd, session.StepData{Turn: turn, Step: 1}).
		add(session.TypeStepStart, session.StepData{Turn: turn, Step: 2}).
		add(session.TypeAssistantMessage, session.AssistantMessageData{Turn: turn, Step: 2, Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("both read")}}}).
		add(session.TypeStepEnd, session.StepData{Turn: turn, Step: 2}).
		add(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
	return b.events[:n], b.events[n:]
}

// OddEvents returns events starting at seq that use every corner of the
// event line: unknown types, unknown members, ignorable, sourceEventSeqs
// (empty and not), surfaceOp as a string and an object, no data, null data.
func OddEvents(seq int64) []session.Event {
	evs := []session.Event{
		{Type: "agent/inbox/spliced", Data: json.RawMessage(`{"target":"next-turn","inserted":[{"role":"user","content":[]}]}`)},
		{Type: "x/custom", Data: json.RawMessage(`[1,"two",{"three":3.5e2}]`), Ignorable: true, Extra: map[string]json.RawMessage{"zeta": json.RawMessage(`{"nested":[true,null]}`), "alpha": json.RawMessage(`"a"`),
			// A packed row's members, unknown on any other event: kept as such.
			"seq0": json.RawMessage(`5`), "time0": json.RawMessage(`"t"`)}},
		{Type: "session/title", Data: json.RawMessage(`{"title":"héllo \u2028 \"quoted\" <tag> & more"}`), SourceEventSeqs: []int64{}, SurfaceOp: json.RawMessage(`"append"`)},
		{Type: "x/no-data", SourceEventSeqs: []int64{0, 1}, SurfaceOp: json.RawMessage(`{"op":"replace","target":3}`)},
		{Type: "x/null-data", Data: json.RawMessage(`null`)},
	}
	for i := range evs {
		evs[i].Seq, evs[i].Time = seq+int64(i), T0+10*(seq+int64(i))
	}
	return evs
}

// RootHeader returns the header of a root session.
func RootHeader(id string) session.Header {
	return session.Header{ID: id, CreatedAt: T0, Cwd: "/work/project", AgentPreset: "coder"}
}

// ForkHeader returns the header of a fork child of parent created by tool
// call callID, inheriting seedLength events.
func ForkHeader(parent, callID string, seedLength int) session.Header {
	return session.Header{
		ID: parent + "/" + callID, CreatedAt: T0 + 1000, Cwd: "/work/project",
		ParentSession: parent, SeedLength: seedLength, Origin: session.OriginSubagent,
		DelegationDepth: 1, AgentPreset: "coder", ParentCallID: callID, Mode: session.ModeFork,
	}
}

// SpawnHeader returns the header of a spawn child of parent created by
// tool call callID: no seedLength.
func SpawnHeader(parent, callID string) session.Header {
	return session.Header{
		ID: parent + "/" + callID, CreatedAt: T0 + 2000, Cwd: "/work/project",
		ParentSession: parent, Origin: session.OriginSubagent,
		DelegationDepth: 1, AgentPreset: "explorer", ParentCallID: callID, Mode: session.ModeSpawn,
	}
}

// Encoded is a log as JSON Lines, the form the checks compare: equal
// encodings are equal logs, header and events, member for member.
func Encoded(l *session.Log) string { return string(session.Encode(&l.Header, l.Events)) }

// TornBytes returns what a crash in the middle of appending events leaves
// at the end of a JSONL log: the first half of the event lines, whole, and
// then half of the next line, without its newline. Crash hooks of backends
// that write lines use it.
func TornBytes(events []session.Event) []byte {
	var out []byte
	keep := len(events) / 2
	for i := range keep {
		out = session.AppendEvent(out, &events[i])
	}
	next := session.AppendEvent(nil, &events[keep])
	return append(out, next[:len(next)/2]...)
}
