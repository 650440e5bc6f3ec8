package conformance

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Fixes of the model-call rules.
const (
	fixHeader   = "write one request/header right before each model call, with the call's turn, step and attempt, and digest exactly the messages the call sends — the session's conversation so far, inherited turns included — with llm.RequestHeader (journal.Journal.BeginCall does both)"
	fixFinish   = "record every chunk of a call's stream, and end each stream with exactly one finish chunk: when the stream stops without one, record an error finish (journal.Call.End does); record no chunk after it"
	fixMsg      = "after a call that finished stop, tool-calls or max-tokens, write its assistant/message (the message the chunks assemble, llm.Assembler) right after its chunks; after a call that finished error or aborted, write none — the failed answer is not part of the conversation (journal.Call.End does this)"
	fixTools    = "write one tool/call per tool-call part of the assistant message, in its order, then one tool/result per call in the same order — whatever order the tools finished in — each with the call's toolCallId (journal.Journal.ToolCalls and ToolResult)"
	fixUsage    = "record the stream's usage chunk like every other chunk (a runtime that reads usage off the stream must still hand the chunk to journal.Call.Chunk), and put the same usage on the call's assistant/message (journal.Call.End does): reports and budgets read a call's tokens from there"
	fixAttempts = "number a step's model calls 1, 2, …: the first call is attempt 1 and each retry one more, in its request/header and its chunks (journal.Journal.BeginCall numbers them; a loop that writes its own must count per step, not reuse 1)"
	fixRecord   = "write a recorded tool's tool/recorded {turn, step, callId, name, arguments, result} once per call, after the step's tool/call events and before that call's tool/result, with the callId of one of the step's tool calls (journal.Journal.Tool, then ToolResult, does)"
)

// call is one model call seen in a step: its request/header and chunks.
type call struct {
	key       [3]int // turn, step, attempt of its chunks
	headerSeq int64  // the seq of the request/header that opened it, if one did
	firstSeq  int64  // its first chunk
	chunks    int
	finishes  int
	late      int // chunks after the finish
	finish    string
	usage     *session.Usage // of its usage chunk, if it had one
	closed    bool
}

func (c *call) String() string {
	return fmt.Sprintf("the model call of turn %d step %d attempt %d (chunks from seq %d)", c.key[0], c.key[1], c.key[2], c.firstSeq)
}

// stepCheck checks the model calls and tool calls of one step.
type stepCheck struct {
	c          *turnCheck
	turn, step int
	cur        *call
	asked      []string // tool-call ids of the step's assistant message
	calls      []string // tool/call ids, in order
	results    []string // tool/result ids, in order
	recorded   []string // tool/recorded ids, in order
	attempts   int      // model calls opened so far by a request/header
}

func (s *stepCheck) log(rule, fix, format string, args ...any) {
	s.c.r.log(s.c.l, rule, fix, format, args...)
}

func (s *stepCheck) add(i int) {
	e := &s.c.l.Events[i]
	switch e.Type {
	case session.TypeRequestHeader:
		s.close(e)
		s.header(i)
	case session.TypeAssistantChunk:
		s.chunk(e)
	case session.TypeAssistantMessage:
		if s.cur == nil || s.cur.closed {
			s.log(ruleAssistantMessage, fixMsg, "turn %d step %d: assistant/message at seq %d follows no model call's chunks", s.turn, s.step, e.Seq)
		}
		s.close(e)
		var d session.AssistantMessageData
		if e.Decode(&d) == nil {
			s.asked = s.asked[:0]
			for _, p := range d.Message.ToolCalls() {
				s.asked = append(s.asked, p.ID)
			}
		}
	case session.TypeToolCall:
		s.close(e)
		var d session.ToolCallData
		_ = e.Decode(&d)
		s.calls = append(s.calls, d.CallID)
	case session.TypeToolResult:
		s.close(e)
		var d session.ToolResultData
		_ = e.Decode(&d)
		id := ""
		for _, p := range d.Message.Content {
			if p.Type == session.PartToolResult {
				id = p.ToolCallID
				break
			}
		}
		s.results = append(s.results, id)
	case session.TypeToolRecorded:
		s.close(e)
		s.record(e)
	}
}

// record checks a recorded tool's tool/recorded event: it answers one of
// the step's tool calls, once, before that call's tool/result.
func (s *stepCheck) record(e *session.Event) {
	var d session.ToolRecordedData
	if err := e.Decode(&d); err != nil {
		s.log(ruleRecordedTool, fixRecord, "tool/recorded at seq %d: %v", e.Seq, err)
		return
	}
	switch {
	case !slices.Contains(s.calls, d.CallID):
		s.log(ruleRecordedTool, fixRecord, "turn %d step %d: tool/recorded at seq %d is for call %q, which is no tool/call of the step (its calls: %v)", s.turn, s.step, e.Seq, d.CallID, s.calls)
	case slices.Contains(s.recorded, d.CallID):
		s.log(ruleRecordedTool, fixRecord, "turn %d step %d: tool/recorded at seq %d is the second for call %q", s.turn, s.step, e.Seq, d.CallID)
	case slices.Contains(s.results, d.CallID):
		s.log(ruleRecordedTool, fixRecord, "turn %d step %d: tool/recorded at seq %d for call %q comes after that call's tool/result", s.turn, s.step, e.Seq, d.CallID)
	}
	s.recorded = append(s.recorded, d.CallID)
}

// header opens a call at the request/header at index i and checks the
// messages it digests against the conversation of the events before it.
func (s *stepCheck) header(i int) {
	e := &s.c.l.Events[i]
	var h session.RequestHeaderData
	_ = e.Decode(&h)
	s.cur = &call{headerSeq: e.Seq, key: [3]int{h.Turn, h.Step, h.Attempt}}
	s.attempts++
	// 0 is a log that does not record attempts: a step's first call.
	if got := max(h.Attempt, 1); got != s.attempts {
		s.log(ruleAttempts, fixAttempts, "turn %d step %d: request/header at seq %d says attempt %d, but it is the step's model call %d: a step's calls are attempts 1, 2, … in order, each retry one more than the call it retries",
			s.turn, s.step, e.Seq, h.Attempt, s.attempts)
	}
	conv := journal.Conversation(s.c.l.Events[:i])
	want := llm.RequestHeader("", &llm.Request{Messages: conv})
	if h.MessageCount == want.MessageCount && h.MessagesDigest == want.MessagesDigest {
		return
	}
	first := ""
	for k := range min(len(h.MessageDigests), len(want.MessageDigests)) {
		if h.MessageDigests[k] != want.MessageDigests[k] {
			first = fmt.Sprintf("; message %d (%s) is the first that differs", k+1, conv[k].Role)
			break
		}
	}
	if hd := &s.c.l.Header; hd.Mode == session.ModeFork && h.MessageCount > want.MessageCount {
		// The likely cause in a fork child: a request built from the
		// parent's whole log, the running turn included.
		first += fmt.Sprintf("; a fork child's request sends the conversation of its seed (seedLength %d) and of its own events, not more of its parent %s's log", hd.SeedLength, hd.ParentSession)
	}
	s.log(ruleRequestHeader, fixHeader, "request/header at seq %d (turn %d step %d) says messageCount %d, messagesDigest %.12s…, but the conversation before it (journal.Conversation) has %d message(s), messagesDigest %.12s…%s",
		e.Seq, h.Turn, h.Step, h.MessageCount, h.MessagesDigest, want.MessageCount, want.MessagesDigest, first)
}

func (s *stepCheck) chunk(e *session.Event) {
	d, err := session.DecodeChunkData(e.Data)
	if err != nil {
		s.log(ruleOneFinish, fixFinish, "assistant/chunk at seq %d: %v", e.Seq, err)
		return
	}
	key := [3]int{d.Turn, d.Step, d.Attempt}
	cur := s.cur
	switch {
	case cur != nil && !cur.closed && cur.chunks == 0:
		// The first chunk of the call its request/header opened.
		if key != cur.key {
			s.log(ruleRequestHeader, fixHeader, "request/header at seq %d says turn %d step %d attempt %d, but the chunks of its call (from seq %d) say turn %d step %d attempt %d",
				cur.headerSeq, cur.key[0], cur.key[1], cur.key[2], e.Seq, key[0], key[1], key[2])
			cur.key = key
		}
		cur.firstSeq = e.Seq
	case cur != nil && !cur.closed && key == cur.key:
		if cur.finishes > 0 {
			cur.late++
		}
	default:
		// Chunks of a call no request/header opened.
		s.close(e)
		s.cur = &call{key: key, firstSeq: e.Seq}
		s.log(ruleRequestHeader, fixHeader, "%s has no request/header before it", s.cur)
	}
	s.cur.chunks++
	if d.Chunk.Type == session.ChunkUsage {
		s.cur.usage = d.Chunk.Usage
	}
	if d.Chunk.IsFinish() {
		s.cur.finishes++
		if d.Chunk.Reason != nil {
			s.cur.finish = d.Chunk.Reason.Kind
		}
	}
}

// close ends the open call; next is the event after it (nil at the end of
// the step).
func (s *stepCheck) close(next *session.Event) {
	c := s.cur
	if c == nil || c.closed {
		return
	}
	c.closed = true
	switch {
	case c.chunks == 0:
		s.log(ruleOneFinish, fixFinish, "the model call of request/header at seq %d has no chunks, so no finish (a call cancelled before its first chunk must still record its aborted finish: a replay cannot serve a call it has no chunk of)", c.headerSeq)
		return
	case c.finishes == 0:
		// Unless its turn ends aborted: then the user cancelled it.
		s.c.cut = append(s.c.cut, fmt.Sprintf("%s has %d chunk(s) and no finish chunk, and its turn does not end aborted (only a user's cancel may cut a call short)", c, c.chunks))
		return
	case c.finishes > 1 || c.late > 0:
		s.log(ruleOneFinish, fixFinish, "%s has %d finish chunk(s) and %d chunk(s) after its first finish", c, c.finishes, c.late)
	}
	failed := c.finish == session.FinishError || c.finish == session.FinishAborted
	isMsg := next != nil && next.Type == session.TypeAssistantMessage
	switch {
	case !failed && !isMsg:
		s.log(ruleAssistantMessage, fixMsg, "%s finished %q, but no assistant/message follows its chunks (next: %s)", c, c.finish, nextName(next))
	case failed && isMsg:
		s.log(ruleAssistantMessage, fixMsg, "%s finished %q, yet the assistant/message at seq %d follows it", c, c.finish, next.Seq)
	}
	if !failed {
		s.checkUsage(c, next, isMsg)
	}
}

// checkUsage checks that a call that answered kept the usage the kit's
// playbook reports for every answer: in its chunks and on its message.
func (s *stepCheck) checkUsage(c *call, next *session.Event, isMsg bool) {
	if c.usage == nil {
		s.log(ruleUsage, fixUsage, "%s has no usage chunk, but the playbook's answer reported one: the runtime dropped the call's token usage", c)
		return
	}
	if !isMsg {
		return
	}
	var d session.AssistantMessageData
	if next.Decode(&d) != nil {
		return
	}
	if d.Usage == nil || !reflect.DeepEqual(*d.Usage, *c.usage) {
		s.log(ruleUsage, fixUsage, "the assistant/message at seq %d says usage %s, but %s reported %s", next.Seq, usageText(d.Usage), c, usageText(c.usage))
	}
}

func usageText(u *session.Usage) string {
	if u == nil {
		return "none"
	}
	return fmt.Sprintf("%d in / %d out", u.InputTokens, u.OutputTokens)
}

func nextName(e *session.Event) string {
	if e == nil {
		return "the end of the step"
	}
	return fmt.Sprintf("%s at seq %d", e.Type, e.Seq)
}

// end closes the step: its calls and results must answer the message.
func (s *stepCheck) end(stepEnd *session.Event) {
	s.close(stepEnd)
	if !slices.Equal(s.asked, s.calls) {
		s.log(ruleToolResults, fixTools, "turn %d step %d: the assistant message asks for tool calls %v, but the step records tool/call events %v", s.turn, s.step, s.asked, s.calls)
	}
	if !slices.Equal(s.calls, s.results) {
		s.log(ruleToolResults, fixTools, "turn %d step %d: the tool/result events answer %v, but the tool calls were %v", s.turn, s.step, s.results, s.calls)
	}
}
