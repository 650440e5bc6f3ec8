package transcript_test

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// builder writes a session log in memory, with dense seqs as a runtime
// would.
type builder struct {
	log  *session.Log
	turn int
	step int
}

func newLog(h session.Header) *builder {
	return &builder{log: &session.Log{Header: h}}
}

func child(id, parent, callID string, mode session.Mode, depth int) *builder {
	return newLog(session.Header{ID: id, ParentSession: parent, ParentCallID: callID, Mode: mode,
		Origin: session.OriginSubagent, DelegationDepth: depth})
}

func (b *builder) event(typ string, v any) *builder {
	GinkgoHelper()
	e, err := session.NewEvent(typ, v)
	Expect(err).NotTo(HaveOccurred())
	e.Seq = int64(len(b.log.Events))
	e.Time = 1_700_000_000_000 + e.Seq
	b.log.Events = append(b.log.Events, e)
	return b
}

// seed copies the parent's first n events, as a fork backend does, and
// stamps seedLength.
func (b *builder) seed(parent *builder, n int) *builder {
	b.log.Events = slices.Clone(parent.log.Events[:n])
	b.log.Header.SeedLength = n
	return b
}

func (b *builder) turnStart(turn int, trigger string) *builder {
	b.turn, b.step = turn, 0
	return b.event(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: trigger})
}

func (b *builder) user(text string) *builder {
	return b.event(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}})
}

func (b *builder) stepStart() *builder {
	b.step++
	return b.event(session.TypeStepStart, session.StepData{Turn: b.turn, Step: b.step})
}

func (b *builder) stepEnd() *builder {
	return b.event(session.TypeStepEnd, session.StepData{Turn: b.turn, Step: b.step})
}

func (b *builder) header() *builder {
	return b.event(session.TypeRequestHeader, session.RequestHeaderData{Turn: b.turn, Step: b.step, Provider: "p", Model: "m"})
}

func (b *builder) chunk(attempt int, c session.Chunk) *builder {
	return b.event(session.TypeAssistantChunk, &session.ChunkData{Turn: b.turn, Step: b.step, Attempt: attempt, Chunk: c})
}

func (b *builder) assistant(parts ...session.Part) *builder {
	return b.event(session.TypeAssistantMessage, session.AssistantMessageData{Turn: b.turn, Step: b.step,
		Message: session.Message{Role: session.RoleAssistant, Content: parts}})
}

func (b *builder) toolCall(id, name, args string) *builder {
	return b.event(session.TypeToolCall, session.ToolCallData{Turn: b.turn, Step: b.step, CallID: id, Name: name, Arguments: args})
}

func (b *builder) result(callID, text string, isError bool) *builder {
	return b.event(session.TypeToolResult, session.ToolResultData{Turn: b.turn, Step: b.step, Message: session.Message{
		Role: session.RoleTool,
		Content: []session.Part{{Type: session.PartToolResult, ToolCallID: callID, IsError: isError,
			Content: []session.Part{session.TextPart(text)}}},
	}})
}

func (b *builder) turnEnd(kind, message string) *builder {
	return b.event(session.TypeTurnEnd, session.TurnEndData{Turn: b.turn, Reason: session.EndReason{Kind: kind, Message: message}})
}

// answer is one step in which the model replies with text and the turn's
// bookkeeping around it.
func (b *builder) answer(text string) *builder {
	return b.stepStart().header().
		chunk(1, session.Chunk{Type: session.ChunkTextDelta, Text: text}).
		chunk(1, session.Finish(session.FinishStop)).
		assistant(session.TextPart(text)).stepEnd()
}

func call(id, name, args string) session.Part {
	return session.Part{Type: session.PartToolCall, ID: id, Name: name, Arguments: args}
}
