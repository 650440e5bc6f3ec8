// Package transcript renders the session logs of one agent tree as a
// readable text: the root first, then every child in lineage order, each
// with its turns, steps, messages, reasoning, tool calls and results. It is
// what transcript.golden holds, so a reviewer reads a behaviour change in a
// diff instead of in JSON. Times and session ids never appear; sessions are
// named by their place in the tree.
package transcript

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/par"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Render returns the transcript of the tree formed by logs (in any order).
// It fails when the logs are not one tree or a log's seedLength is past its
// events.
func Render(logs []*session.Log) (string, error) {
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	return RenderOrdered(ordered)
}

// RenderOrdered is Render of logs already in lineage order, as
// session.LineageOrder returns them: a caller that ordered them does not
// pay for it again.
func RenderOrdered(ordered []*session.Log) (string, error) {
	for _, l := range ordered {
		// Logs built in memory skip the reader's check, and Seed would panic.
		if n := l.Header.SeedLength; n < 0 || n > len(l.Events) {
			return "", fmt.Errorf("transcript: session %s: %w: seedLength %d, %d events", l.Header.ID, session.ErrSeedPastEnd, n, len(l.Events))
		}
	}
	labels := Labels(ordered)
	// A tree of thousands of sessions (agentsnap serve's) renders in pieces
	// on every processor, joined in order; a few render as one piece.
	pieces := make([]strings.Builder, (len(ordered)+sessionsPerPiece-1)/sessionsPerPiece)
	render := func(p int) {
		b := &pieces[p]
		for i := p * sessionsPerPiece; i < min(len(ordered), (p+1)*sessionsPerPiece); i++ {
			if i > 0 {
				b.WriteString("\n")
			}
			writeSession(b, ordered[i], labels)
		}
	}
	switch len(pieces) {
	case 0:
		return "", nil
	case 1:
		render(0)
		return pieces[0].String(), nil
	}
	par.For(len(pieces), render)
	n := 0
	for p := range pieces {
		n += pieces[p].Len()
	}
	var b strings.Builder
	b.Grow(n)
	for p := range pieces {
		b.WriteString(pieces[p].String())
	}
	return b.String(), nil
}

// sessionsPerPiece is how many sessions a piece of a transcript holds:
// enough that a piece is worth a goroutine's hand-over.
const sessionsPerPiece = 64

// Labels names each session of a lineage-ordered tree: "root", then
// "session 1", "session 2", ... — the numbers of their fixture files.
func Labels(ordered []*session.Log) map[string]string {
	labels := make(map[string]string, len(ordered))
	for i, l := range ordered {
		if i == 0 {
			labels[l.Header.ID] = "root"
		} else {
			labels[l.Header.ID] = "session " + strconv.Itoa(i)
		}
	}
	return labels
}

func writeSession(b *strings.Builder, l *session.Log, labels map[string]string) {
	h := &l.Header
	fmt.Fprintf(b, "== %s", labels[h.ID])
	if h.ParentSession != "" {
		mode := string(h.Mode)
		if mode == "" {
			mode = "child"
		}
		fmt.Fprintf(b, ": %s of %s via %s, depth %d", mode, labels[h.ParentSession], orNone(h.ParentCallID), h.DelegationDepth)
	}
	b.WriteString(" ==\n")
	if h.SeedLength > 0 {
		fmt.Fprintf(b, "(inherits %d events from %s: %s)\n", h.SeedLength, labels[h.ParentSession], inheritedTurns(l.Seed()))
	}
	w := &writer{b: b}
	seed := l.Seed()
	for i := len(seed) - 1; i >= 0; i-- {
		if seed[i].Type == session.TypeRequestHeader {
			w.system, w.tools = requestDigests(seed[i].Data) // what the inherited turns were asked with
			break
		}
	}
	for i := range l.Own() {
		w.event(&l.Own()[i])
	}
}

// requestDigests returns the system prompt's and the tools' digests of a
// request/header payload, read without decoding the rest: windows of data,
// which only the next request's are compared with.
func requestDigests(data []byte) (system, tools []byte) {
	return digestAfter(data, `"systemDigest":"`), digestAfter(data, `"toolsDigest":"`)
}

func digestAfter(data []byte, key string) []byte {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return nil
	}
	rest := data[i+len(key):]
	if j := bytes.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "an unrecorded call"
	}
	return s
}

func inheritedTurns(seed []session.Event) string {
	var turns []string
	for i := range seed {
		if seed[i].Type == session.TypeTurnStart {
			var d session.TurnStartData
			if seed[i].Decode(&d) == nil {
				turns = append(turns, strconv.Itoa(d.Turn))
			}
		}
	}
	switch len(turns) {
	case 0:
		return "no turns"
	case 1:
		return "turn " + turns[0]
	}
	return "turns " + strings.Join(turns, ", ")
}

// writer renders events with indentation by nesting: turn > step > content.
type writer struct {
	b   *strings.Builder
	buf []byte // the line being written, reused
	// system and tools are the digests of the session's last request: a
	// call under another prompt or with other tools (a handoff to another
	// agent) is shown.
	system, tools []byte
	// recorded holds the call ids of the step's recorded tools
	// (tool/recorded): their results are marked so.
	recorded map[string]bool
	inStep   bool
}

// sideIndent is the indent of what happens beside the model calls (an MCP
// call, a token count): under the step it is made in, or the turn.
func (w *writer) sideIndent() int {
	if w.inStep {
		return 2
	}
	return 1
}

// line writes text under a label, continuation lines aligned after the
// label. Trailing spaces are cut from every line, so editors that strip
// them cannot break a golden; the session logs still hold the exact text.
func (w *writer) line(indent int, label, text string) {
	text = strings.TrimRight(text, "\n")
	for i := 0; ; i++ {
		l, rest, more := strings.Cut(text, "\n")
		buf := w.buf[:0]
		for range indent {
			buf = append(buf, "  "...)
		}
		if i == 0 {
			buf = append(buf, label...)
		} else {
			for range len(label) {
				buf = append(buf, ' ')
			}
		}
		buf = bytes.TrimRight(append(buf, l...), " \t")
		w.b.Write(append(buf, '\n'))
		w.buf = buf
		if !more {
			return
		}
		text = rest
	}
}

func (w *writer) event(e *session.Event) {
	switch e.Type {
	case session.TypeTurnStart:
		var d session.TurnStartData
		_ = e.Decode(&d)
		trigger := ""
		if d.Trigger != "" {
			trigger = " (" + d.Trigger + ")"
		}
		w.line(0, "", "turn "+strconv.Itoa(d.Turn)+trigger)
	case session.TypeUserMessage:
		var m session.Message
		_ = e.Decode(&m)
		w.line(1, "user: ", m.Text())
		w.attachments(2, m.Content)
	case session.TypeStepStart:
		var d session.StepData
		_ = e.Decode(&d)
		w.line(1, "", "step "+strconv.Itoa(d.Step))
		w.inStep, w.recorded = true, nil
	case session.TypeToolRecorded:
		var d session.ToolRecordedData
		_ = e.Decode(&d)
		if w.recorded == nil {
			w.recorded = map[string]bool{}
		}
		w.recorded[d.CallID] = true
	case session.TypeMCPCall:
		var d session.MCPCallData
		_ = e.Decode(&d)
		w.line(w.sideIndent(), "mcp "+d.Server+" ", mcpSummary(&d))
	case session.TypeCountTokens:
		var d session.CountTokensData
		_ = e.Decode(&d)
		if f := d.Failure; f != nil {
			// The code and status: the message names the endpoint's host.
			why := f.Code
			if f.Status > 0 {
				why += " (HTTP " + strconv.Itoa(f.Status) + ")"
			}
			w.line(w.sideIndent(), "count tokens failed: ", why)
		} else {
			w.line(w.sideIndent(), "count tokens ", strconv.FormatInt(d.InputTokens, 10))
		}
	case session.TypeAssistantChunk:
		w.chunk(e)
	case session.TypeAssistantMessage:
		var d session.AssistantMessageData
		_ = e.Decode(&d)
		w.message(&d.Message)
	case session.TypeToolResult:
		var d session.ToolResultData
		_ = e.Decode(&d)
		w.results(&d.Message)
	case session.TypeTurnEnd:
		var d session.TurnEndData
		_ = e.Decode(&d)
		msg := d.Reason.Kind
		if d.Reason.Message != "" {
			msg += ": " + d.Reason.Message
		}
		w.line(1, "ended ", msg)
	case session.TypeHistoryReplace:
		var d session.HistoryReplaceData
		_ = e.Decode(&d)
		w.history(&d)
	case session.TypeRequestHeader:
		w.request(e)
	case session.TypeStepEnd:
		w.inStep = false // step/end adds nothing a reader needs
	case session.TypeToolCall:
		// Tool calls show in the assistant message.
	default:
		w.line(1, "", "event "+e.Type)
	}
}

// chunk shows only model calls that did not end normally: the rest of the
// stream is in the assistant message.
func (w *writer) chunk(e *session.Event) {
	if !session.MayFinish(e.Data) {
		return // most chunks: decoding them would find a delta
	}
	d, err := session.DecodeChunkData(e.Data)
	if err != nil || !d.Chunk.IsFinish() || d.Chunk.Reason == nil {
		return
	}
	r := d.Chunk.Reason
	attempt := ""
	if d.Attempt > 0 {
		attempt = fmt.Sprintf(" (attempt %d)", d.Attempt)
	}
	switch r.Kind {
	case session.FinishError:
		msg := "model call failed" + attempt
		if r.Failure != nil {
			msg += ": " + strings.TrimPrefix(r.Failure.Code+": ", ": ") + r.Failure.Message
		}
		w.line(2, "", msg)
	case session.FinishAborted:
		w.line(2, "", "model call aborted"+attempt)
	case session.FinishMaxTokens:
		w.line(2, "", "model call hit the token limit"+attempt)
	}
}

// request shows a model call made under another system prompt or with
// other tools than the session's call before it — an agent that handed the
// conversation to another (a handoff). The digests themselves have their
// own drift check.
func (w *writer) request(e *session.Event) {
	system, tools := requestDigests(e.Data)
	sameSystem, sameTools := bytes.Equal(system, w.system), bytes.Equal(tools, w.tools)
	changed := len(w.system) > 0 && (!sameSystem || !sameTools)
	if changed {
		var d session.RequestHeaderData
		_ = e.Decode(&d)
		var what []string
		if !sameSystem {
			what = append(what, fmt.Sprintf("another system prompt (%d characters)", d.SystemChars))
		}
		if !sameTools {
			names := "none"
			if len(d.ToolNames) > 0 {
				names = strings.Join(d.ToolNames, ", ")
			}
			what = append(what, "other tools ("+names+")")
		}
		w.line(2, "", "called with "+strings.Join(what, " and "))
	}
	w.system, w.tools = system, tools
}

// history shows a conversation an agent replaced: what it kept, and the
// messages it sent instead.
func (w *writer) history(d *session.HistoryReplaceData) {
	kept := fmt.Sprintf("the first %d messages", d.Keep)
	switch d.Keep {
	case 0:
		kept = "no message"
	case 1:
		kept = "the first message"
	}
	if len(d.Messages) == 0 {
		w.line(1, "", "history replaced: "+kept+" kept, nothing after")
		return
	}
	w.line(1, "", "history replaced: "+kept+" kept, then:")
	for i := range d.Messages {
		m := &d.Messages[i]
		switch m.Role {
		case session.RoleUser:
			w.line(2, "user: ", m.Text())
			w.attachments(3, m.Content)
		case session.RoleTool:
			w.results(m)
		default:
			w.message(m)
		}
	}
}

// results shows the tool results of a message.
func (w *writer) results(m *session.Message) {
	for _, p := range m.Content {
		if p.Type != session.PartToolResult {
			continue
		}
		var marks []string
		if w.recorded[p.ToolCallID] {
			marks = append(marks, "recorded")
		}
		if p.IsError {
			marks = append(marks, "error")
		}
		label := "result " + p.ToolCallID + ": "
		if len(marks) > 0 {
			label = "result " + p.ToolCallID + " (" + strings.Join(marks, ", ") + "): "
		}
		var text []string
		for _, c := range p.Content {
			text = append(text, c.Text)
		}
		w.line(2, label, strings.Join(text, ""))
		w.attachments(3, p.Content)
	}
}

// attachments shows each image and file of parts on a line of its own,
// at depth: what it is, its size and digest (llm.Describe).
func (w *writer) attachments(depth int, parts []session.Part) {
	for i := range parts {
		if p := &parts[i]; p.Type == session.PartImage || p.Type == session.PartFile {
			w.line(depth, p.Type+": ", llm.Describe(p.Attachment))
		}
	}
}

func (w *writer) message(m *session.Message) {
	for _, p := range m.Content {
		switch p.Type {
		case session.PartReasoning:
			w.line(2, "thinking: ", p.Text)
		case session.PartText:
			w.line(2, "assistant: ", p.Text)
		case session.PartToolCall:
			w.line(2, "call "+p.ID+" "+p.Name+" ", p.Arguments)
		}
	}
}
