package journal

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Triggers of turn/start: what started the turn.
const (
	TriggerUser     = "user"     // a user prompt
	TriggerSubagent = "subagent" // the delegation that created the session
)

// StartTurn begins the next turn with the user messages that start it —
// usually one: the prompt; an agent may open a turn with several, such as
// a context message and the question — and returns the turn's number.
// Turns are numbered from 1; a fork child's first own turn continues after
// the turns it inherited.
func (j *Journal) StartTurn(trigger string, user ...session.Message) int {
	j.turn++
	j.step = 0
	j.inTurn = true
	j.emitOwn(session.TypeTurnStart, session.TurnStartData{Turn: j.turn, Trigger: trigger})
	if j.replaced != nil {
		j.emit(session.TypeHistoryReplace, *j.replaced)
		j.replaced = nil
	}
	for _, m := range user {
		j.emitOwn(session.TypeUserMessage, m)
		j.addMessage(m)
	}
	return j.turn
}

// ReplaceHistory records that the session's next model call sends a
// conversation other than the log's: an agent that rewrites, reorders,
// splits, merges, truncates or compacts its history. The conversation
// keeps its first keep messages and goes on with history, as sent (a
// history/replace event). Call it between steps of a turn (it is written
// at once, before the next StartStep), or between turns, before StartTurn:
// it then belongs to the next turn and is written right after its
// turn/start, before the messages that start it.
func (j *Journal) ReplaceHistory(keep int, history []session.Message) error {
	if j.inStep {
		return fmt.Errorf("journal: session %s: ReplaceHistory inside step %d; call it before StartStep", j.header.ID, j.step)
	}
	if j.replaced != nil {
		return fmt.Errorf("journal: session %s: ReplaceHistory twice before turn %d starts; replace the history once", j.header.ID, j.turn+1)
	}
	if keep < 0 || keep > len(j.messages) {
		return fmt.Errorf("journal: session %s: ReplaceHistory keeps %d messages of %d", j.header.ID, keep, len(j.messages))
	}
	if history == nil {
		history = []session.Message{}
	}
	d := session.HistoryReplaceData{Turn: j.turn, Keep: keep, Messages: history}
	if j.inTurn {
		j.emit(session.TypeHistoryReplace, d)
	} else {
		d.Turn = j.turn + 1
		j.replaced = &d
	}
	j.replaceMessages(keep, history)
	return nil
}

// UserText is the user message of a plain text prompt.
func UserText(prompt string) session.Message {
	return session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(prompt)}}
}

// StartStep begins the turn's next step (numbered from 1) and returns its
// number. A step is one model call (retries included) and the tool calls
// it asks for.
func (j *Journal) StartStep() int {
	j.writeRecords("", false)
	j.step++
	j.attempt = 0
	j.inStep = true
	j.emitOwn(session.TypeStepStart, session.StepData{Turn: j.turn, Step: j.step})
	return j.step
}

// Call is one model call being recorded; see BeginCall.
type Call struct {
	j                   *Journal
	turn, step, attempt int
	asm                 llm.Assembler
	finished            bool
	abandoned           bool
	ended               bool // End recorded the message; a second End records nothing
}

// BeginCall records the start of a model call of the current step: it
// fills req's Session, Turn, Step and Attempt (1 for the step's first call,
// one more for each retry) and, when req.Messages is nil, the conversation
// so far; it writes the request/header event that digests what req sends
// (provider recorded as given) and flushes, so the call is durable before
// the model answers (unless Config.FlushAfterAnswers leaves that to the
// answer's flush). Feed the stream's chunks to Call.Chunk, then End.
func (j *Journal) BeginCall(ctx context.Context, provider string, req *llm.Request) (*Call, error) {
	return j.BeginCallRepeating(ctx, provider, req, 0)
}

// BeginCallRepeating is BeginCall for a caller that gives every call its
// conversation in full (req.Messages) and knows that the first repeated
// of them are, unchanged, the first repeated messages it gave the
// session's last BeginCall — the wire layer reads them from the same
// bytes. They are not compared with the session's conversation again, so
// a call costs what its new messages cost, however long the conversation.
// With repeated 0 it is BeginCall.
func (j *Journal) BeginCallRepeating(ctx context.Context, provider string, req *llm.Request, repeated int) (*Call, error) {
	repeated = max(repeated, 0)
	known, sent := 0, 0
	if j.given.gen == j.gen {
		known = min(repeated, j.given.same)
	}
	if j.given.digested {
		sent = repeated // the digester's copies are the last call's
	}
	j.given.gen, j.given.digested = -1, false // until this call's conversation is compared
	if !j.inStep {
		return nil, fmt.Errorf("journal: session %s: BeginCall outside a step; call StartStep first", j.header.ID)
	}
	j.attempt++
	req.Session, req.Turn, req.Step, req.Attempt = j.Ref(), j.turn, j.step, j.attempt
	// Each message, system prompt and tool set is hashed once per session:
	// the session's own conversation keeps its digests as it grows, and a
	// conversation given in full (the wire's) is hashed past what it
	// shares with the last one given.
	var h session.RequestHeaderData
	j.mu.Lock() // a child being created forks the digester
	if req.Messages == nil {
		req.Messages = j.messages
		j.given.same, j.given.gen = len(j.messages), j.gen
		h = j.digester.HeaderChain(provider, req, j.digests, &j.chain)
	} else if j.sameConversation(req.Messages, known) {
		// The wire's usual call: the agent sends back the session's own
		// conversation, whose digests the journal keeps already.
		h = j.digester.HeaderChain(provider, req, j.digests, &j.chain)
	} else {
		h = j.digester.HeaderRepeating(provider, req, sent)
		j.given.digested = true
	}
	j.mu.Unlock()
	j.emitOwn(session.TypeRequestHeader, h)
	if !j.cfg.FlushAfterAnswers {
		if err := j.Flush(ctx); err != nil {
			return nil, err
		}
	}
	return &Call{j: j, turn: j.turn, step: j.step, attempt: j.attempt}, nil
}

// sameConversation reports whether msgs encode to the session's
// conversation, their first known messages known to, and notes how many
// leading messages do for the next call (BeginCallRepeating).
func (j *Journal) sameConversation(msgs []session.Message, known int) bool {
	n := min(len(msgs), len(j.messages))
	i := min(known, n)
	for i < n && llm.SameMessage(&msgs[i], &j.messages[i]) {
		i++
	}
	j.given.same, j.given.gen = i, j.gen
	return i == len(msgs) && i == len(j.messages)
}

// Chunk records one chunk of the call's stream (an assistant/chunk event).
// Chunks after the finish are not recorded: a call ends with exactly one.
func (c *Call) Chunk(ch llm.Chunk) {
	if c.finished {
		return
	}
	c.asm.Add(ch)
	d := session.ChunkData{Turn: c.turn, Step: c.step, Attempt: c.attempt, Chunk: ch}
	c.j.append(session.Event{Type: session.TypeAssistantChunk, Data: c.j.encodeChunk(&d)})
	c.finished = ch.IsFinish()
}

// End closes the call and returns the assistant message its chunks make and
// how it finished. A stream that gave no finish gets an error finish
// (llm.CodeNoFinish), so the log closes every call. Unless the call failed
// or was aborted, the message is recorded (assistant/message, with the
// usage) and joins the conversation — once: End again returns the same
// and records nothing.
func (c *Call) End() (session.Message, *session.FinishReason) {
	if c.abandoned {
		return c.asm.Message(), &session.FinishReason{Kind: session.FinishAborted}
	}
	if !c.finished {
		c.Chunk(session.ErrorFinish(llm.CodeNoFinish, "the model stream ended without a finish chunk"))
	}
	msg, finish := c.asm.Message(), c.asm.Finish()
	if !c.ended && finish.Kind != session.FinishError && finish.Kind != session.FinishAborted {
		c.j.emitOwn(session.TypeAssistantMessage, session.AssistantMessageData{Turn: c.turn, Step: c.step, Message: msg, Usage: c.asm.Usage()})
		c.j.addMessage(msg)
	}
	c.ended = true
	return msg, finish
}

// Usage returns the usage the call's stream reported, or nil.
func (c *Call) Usage() *session.Usage { return c.asm.Usage() }

// Abandon closes the call without a finish chunk: what a runtime records
// when the user cancels and it stops reading the stream (dsh does). End the
// turn as aborted after it; a replay then serves the call as a hang that
// lasts until the turn is cancelled. Prefer End, which records a finish.
// End after Abandon records nothing more and reports an aborted finish.
func (c *Call) Abandon() { c.finished, c.abandoned = true, true }

// ToolCalls records the tool calls of the step's model answer (one
// tool/call event each, in order) and flushes, so a child session that a
// call creates finds its parent's call stored.
func (j *Journal) ToolCalls(ctx context.Context, calls []session.Part) error {
	for _, c := range calls {
		j.emitOwn(session.TypeToolCall, session.ToolCallData{Turn: j.turn, Step: j.step, CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return j.Flush(ctx)
}

// ToolResult records the result of one tool call (a tool/result event) and
// adds it to the conversation. Record the results of a step in the order of
// its calls, whatever order the tools finished in: a log's bytes must not
// depend on scheduling.
func (j *Journal) ToolResult(callID, name, text string, isError bool) {
	j.writeRecords(callID, false)
	// The result part and its text part in one allocation, each capped.
	parts := []session.Part{{Type: session.PartToolResult, ToolCallID: callID, Name: name, IsError: isError}, session.TextPart(text)}
	parts[0].Content = parts[1:2:2]
	j.toolResult(parts[0:1:1])
}

// ToolResultContent is ToolResult for a result that says more than text:
// content is its parts, text and the images and files it returned
// (session.PartImage, PartFile), in order. The journal keeps content; do
// not change it after.
func (j *Journal) ToolResultContent(callID, name string, content []session.Part, isError bool) {
	j.writeRecords(callID, false)
	j.toolResult([]session.Part{{Type: session.PartToolResult, ToolCallID: callID, Name: name, IsError: isError, Content: content}})
}

// ToolResultMeta is ToolResultContent for a result whose part carries
// meta (session.Part.Meta): what the model API sent with the result
// beside its content, such as a Gemini functionResponse's willContinue
// and scheduling, recorded with it so that another value is a difference
// of the tool/result. The journal keeps content and meta; do not change
// them after.
func (j *Journal) ToolResultMeta(callID, name string, content []session.Part, isError bool, meta json.RawMessage) {
	j.writeRecords(callID, false)
	j.toolResult([]session.Part{{Type: session.PartToolResult, ToolCallID: callID, Name: name, IsError: isError, Content: content, Meta: meta}})
}

// toolResult records the tool/result of part, a tool-result part.
func (j *Journal) toolResult(part []session.Part) {
	msg := session.Message{Role: session.RoleTool, Content: part}
	j.emitOwn(session.TypeToolResult, session.ToolResultData{Turn: j.turn, Step: j.step, Message: msg})
	j.addMessage(msg)
}

// EndStep records the end of the current step and flushes (unless
// Config.FlushAfterAnswers leaves that to the next answer's flush).
func (j *Journal) EndStep(ctx context.Context) error {
	j.writeRecords("", true)
	j.forgetToRun()
	j.inStep = false
	j.emitOwn(session.TypeStepEnd, session.StepData{Turn: j.turn, Step: j.step})
	if j.cfg.FlushAfterAnswers {
		return nil
	}
	return j.Flush(ctx)
}

// EndTurn records how the current turn ended (completed, error, aborted)
// and flushes. An open step is ended first. From here on a fork child
// inherits this turn.
func (j *Journal) EndTurn(ctx context.Context, reason session.EndReason) error {
	j.writeRecords("", true)
	j.forgetToRun()
	if j.inStep {
		j.inStep = false
		j.emitOwn(session.TypeStepEnd, session.StepData{Turn: j.turn, Step: j.step})
	}
	j.inTurn = false
	j.emitOwn(session.TypeTurnEnd, session.TurnEndData{Turn: j.turn, Reason: reason})
	j.mu.Lock()
	j.completed = j.stored + j.events.len()
	j.markCompleted()
	j.mu.Unlock()
	return j.Flush(ctx)
}

// Conversation returns the messages a session's events hold, in order:
// user messages, assistant messages and tool results, with every
// history/replace applied where it stands — what its next model call
// sends.
func Conversation(events []session.Event) []session.Message {
	var out []session.Message
	for i := range events {
		e := &events[i]
		switch e.Type {
		case session.TypeUserMessage:
			var m session.Message
			if e.Decode(&m) == nil {
				out = append(out, m)
			}
		case session.TypeAssistantMessage:
			var d session.AssistantMessageData
			if e.Decode(&d) == nil {
				out = append(out, d.Message)
			}
		case session.TypeToolResult:
			var d session.ToolResultData
			if e.Decode(&d) == nil {
				out = append(out, d.Message)
			}
		case session.TypeHistoryReplace:
			var d session.HistoryReplaceData
			if e.Decode(&d) == nil && d.Keep >= 0 && d.Keep <= len(out) {
				out = append(out[:d.Keep:d.Keep], d.Messages...)
			}
		}
	}
	return out
}

// LastTurn returns the number of the last turn started in events, 0 if none.
func LastTurn(events []session.Event) int {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == session.TypeTurnStart {
			var d session.TurnStartData
			if events[i].Decode(&d) == nil {
				return d.Turn
			}
		}
	}
	return 0
}

// openTurn reports whether the last turn/start has no turn/end after it.
func openTurn(events []session.Event) (bool, int) {
	for i := len(events) - 1; i >= 0; i-- {
		switch events[i].Type {
		case session.TypeTurnEnd:
			return false, 0
		case session.TypeTurnStart:
			var d session.TurnStartData
			_ = events[i].Decode(&d)
			return true, d.Turn
		}
	}
	return false, 0
}
