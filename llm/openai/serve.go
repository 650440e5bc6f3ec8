package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// Call is an agent's request in agentsnap's terms, as the wire layer
// records it.
type Call struct {
	Model string
	// System is the system prompt: the text of the request's system and
	// developer messages, joined by blank lines.
	System string
	// Messages is the conversation, system prompt excluded (see
	// DecodeRequest).
	Messages []session.Message
	Tools    []llm.ToolSpec
	// ToolsSetting is the tools as sent when one of them says more than
	// Tools holds (strict, a tool of another type, …); nil otherwise. It
	// is a setting, "tools": a live model of this API gets the tools as
	// the agent sent them, and a change is drift.
	ToolsSetting json.RawMessage
	Stream       bool
	// Members is every member of the request object as sent but messages
	// (which System and Messages hold); all but Known are its settings.
	Members map[string]json.RawMessage
	// Media is the agent's own content part for each image and file part
	// of Messages (Forward.Media); nil when there are none.
	Media llm.Media
}

// DecodeRequest reads the body of an agent's POST /chat/completions.
//
// System and developer messages make the system prompt, wherever they
// stand. A tool message becomes a message of role tool with one
// tool-result part, named after the tool call of an earlier assistant
// message it answers; an assistant message's reasoning_content a
// reasoning part before its text and tool calls. A user message's
// content array is its text, in one part, or, when it holds images
// (image_url), audio (input_audio) or files (file), its text between
// them and an image or file part for each (see session.Attachment); any
// other part, or one of these in another message, is an error: agentsnap
// does not record it yet, and does not drop it. A tool that says more
// than a function's name, description and parameters makes the tools a
// setting (ToolsSetting).
func DecodeRequest(body []byte) (*Call, error) {
	call, _, err := decodeWhole(body)
	return call, err
}

// decodeWhole is DecodeRequest, also returning the texts of the system
// prompt.
func decodeWhole(body []byte) (*Call, []string, error) {
	call, system, ok := fastWhole(body)
	if !ok {
		var err error
		if call, system, err = decodeStd(body); err != nil {
			return nil, nil, err
		}
	}
	set, err := toolsSetting(call.Members["tools"])
	if err != nil {
		return nil, nil, err
	}
	call.ToolsSetting = set
	return call, system, nil
}

// decodeStd is decodeWhole with encoding/json: what fastWhole reads as it
// does, and every body fastWhole leaves to it.
func decodeStd(body []byte) (*Call, []string, error) {
	var in Request
	if err := json.Unmarshal(body, &in); err != nil {
		if shape := jsonscan.TypeError(body, "", err); shape != nil {
			return nil, nil, shape
		}
		return nil, nil, fmt.Errorf("the body is not a chat completions request: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, nil, fmt.Errorf("the body is not a JSON object: %w", err)
	}
	delete(members, "messages")
	out := &Call{Model: in.Model, Stream: in.Stream, Members: members}
	var r reader
	for i := range in.Messages {
		if err := r.add(i, &in.Messages[i]); err != nil {
			return nil, nil, err
		}
	}
	out.Messages, out.System, out.Media = r.msgs, strings.Join(r.system, "\n\n"), r.media
	for _, t := range in.Tools {
		if !isFunction(t.Type) {
			continue
		}
		out.Tools = append(out.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return out, r.system, nil
}

// reader turns a request's messages into a Call's, one after another,
// after the messages before (a request read earlier whose messages this
// one repeats).
type reader struct {
	before []session.Message
	msgs   []session.Message
	system []string
	media  llm.Media // of msgs, a map of its own
}

// add reads m, the request's messages[i].
func (r *reader) add(i int, m *Message) error {
	text, parts, err := readContent(m.Content, i, len(r.before)+len(r.msgs), m.Role, &r.media)
	if err != nil {
		where := contentAt(i)
		if strings.HasPrefix(err.Error(), where) {
			return err
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	switch m.Role {
	case "system", "developer":
		r.system = append(r.system, text)
	case session.RoleUser:
		if parts == nil {
			parts = []session.Part{session.TextPart(text)}
		}
		r.msgs = append(r.msgs, session.Message{Role: session.RoleUser, Content: parts})
	case session.RoleAssistant:
		r.msgs = append(r.msgs, r.assistant(m, text))
	case session.RoleTool:
		// The result part and its text part in one allocation, each capped.
		parts := []session.Part{{Type: session.PartToolResult, ToolCallID: m.ToolCallID, Name: r.toolName(m.ToolCallID)}, session.TextPart(text)}
		parts[0].Content = parts[1:2:2]
		r.msgs = append(r.msgs, session.Message{Role: session.RoleTool, Content: parts[0:1:1]})
	default:
		return fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
	}
	return nil
}

// assistant is an assistant message of a request: its reasoning, its
// text, its tool calls, whose names it notes for the results.
func (r *reader) assistant(m *Message, text string) session.Message {
	n := len(m.ToolCalls)
	if m.ReasoningContent != "" {
		n++
	}
	if text != "" {
		n++
	}
	msg := session.Message{Role: session.RoleAssistant, Content: make([]session.Part, 0, n)}
	if m.ReasoningContent != "" {
		msg.Content = append(msg.Content, session.Part{Type: session.PartReasoning, Text: m.ReasoningContent})
	}
	if text != "" {
		msg.Content = append(msg.Content, session.TextPart(text))
	}
	for _, c := range m.ToolCalls {
		msg.Content = append(msg.Content, session.Part{Type: session.PartToolCall, ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return msg
}

// toolName is the name of the latest tool call with id before the message
// being read: of the messages read here, else of those before.
func (r *reader) toolName(id string) string {
	if name, ok := session.LatestCallName(r.msgs, id); ok {
		return name
	}
	name, _ := session.LatestCallName(r.before, id)
	return name
}

// CompletionID is the id of every answer agentsnap serves: fixed, like
// created (0), so the bytes an agent reads are the same in every run.
const CompletionID = "chatcmpl-agentsnap"

// Error types of ErrorDetail.
const (
	ErrorTypeServe  = "agentsnap_error"        // a request the server cannot serve
	ErrorTypeReplay = "agentsnap_replay_error" // a model call that failed
)

// FinishReason is the finish_reason of a finish kind.
func FinishReason(kind string) string {
	switch kind {
	case session.FinishToolCalls:
		return "tool_calls"
	case session.FinishMaxTokens:
		return "length"
	}
	return "stop"
}

// NewErrorBody is an error answer's body (or a failed stream's last frame).
func NewErrorBody(code, message, typ string) ErrorBody {
	return ErrorBody{Error: ErrorDetail{Code: code, Message: message, Type: typ}}
}

// apiUsage is a usage in the API's terms.
func apiUsage(u *session.Usage) *Usage {
	if u == nil {
		return nil
	}
	out := &Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	if u.CacheReadTokens != nil {
		out.PromptTokensDetails = &PromptTokensDetails{CachedTokens: u.CacheReadTokens}
	}
	if u.ReasoningTokens != nil {
		out.CompletionTokensDetails = &CompletionTokensDetails{ReasoningTokens: u.ReasoningTokens}
	}
	return out
}

// Whole is the whole answer (a request without stream) for an assembled
// message, its usage and how it finished (a finish that is not an error).
// Reasoning goes out as reasoning_content, as DeepSeek sends it.
func Whole(model string, msg session.Message, usage *session.Usage, kind string) Completion {
	var text, reasoning strings.Builder
	var calls []AnswerToolCall
	for _, p := range msg.Content {
		switch p.Type {
		case session.PartText:
			text.WriteString(p.Text)
		case session.PartReasoning:
			reasoning.WriteString(p.Text)
		case session.PartToolCall:
			calls = append(calls, AnswerToolCall{ID: p.ID, Type: "function", Function: AnswerFunction{Name: p.Name, Arguments: p.Arguments}})
		}
	}
	out := AnswerMessage{Role: session.RoleAssistant, ReasoningContent: reasoning.String(), ToolCalls: calls}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String()
		out.Content = &s
	}
	return Completion{ID: CompletionID, Object: "chat.completion", Model: model, Usage: apiUsage(usage),
		Choices: []CompletionChoice{{Message: out, FinishReason: FinishReason(kind)}}}
}

// noFlush is the flush of a writer that needs none.
func noFlush() {}

// ServeStream writes the chunks of one model call as the API's stream: a
// data: event per chat.completion.chunk (the first with role assistant),
// calling flush after each (nil for a writer that needs none). Reasoning
// goes out as reasoning_content, as DeepSeek sends it. A tool call's fragments wait until its id is known,
// so the first one an agent reads carries it (a recording whose deltas
// named no id sends the call whole at its block-end, with the id the log
// gave it). The finish frame carries the finish_reason, then comes the
// usage frame (choices empty) and data: [DONE]. A failed call ends with an
// error frame instead; an aborted one with nothing more, as a connection
// that is cut does. chunks must not call yield once it returned, as a
// range over it may not: the stream's state goes to the next stream served.
func ServeStream(w io.Writer, flush func(), model string, chunks iter.Seq[session.Chunk]) error {
	if flush == nil {
		flush = noFlush
	}
	s := streams.Get().(*stream)
	s.w, s.flush, s.model, s.role = w, flush, model, session.RoleAssistant
	chunks(s.each)
	err := s.err
	s.release() // not deferred: a stream whose chunks panicked is not served again
	return err
}

// stream is a stream being served.
type stream struct {
	w     io.Writer
	flush func()
	model string
	calls []servedCall // in start order; an answer makes a few
	usage *session.Usage
	role  string // the role the next frame announces, until the first
	buf   []byte // the event being written
	ended bool   // by the finish or an error writing
	err   error  // ServeStream's

	each func(session.Chunk) bool // next, bound once for every stream served
}

// streams keeps the streams served, for the next: an io.Writer keeps
// nothing it is given, so the frame buffer is free once a stream ends.
var streams = sync.Pool{New: func() any {
	s := &stream{buf: make([]byte, 0, 512)}
	s.each = s.next
	return s
}}

// release hands s back to streams, keeping nothing of its call.
func (s *stream) release() {
	clear(s.calls)
	if cap(s.buf) > 64<<10 {
		s.buf = nil // an outsized frame: not kept for every stream after
	}
	*s = stream{buf: s.buf[:0], calls: s.calls[:0], each: s.each}
	streams.Put(s)
}

// next serves one chunk of the stream; false once it ended.
func (s *stream) next(c session.Chunk) bool {
	switch {
	case s.ended:
	case c.Type == session.ChunkFinish:
		s.err, s.ended = s.finish(c.Reason), true
	default:
		s.err = s.chunk(&c)
		s.ended = s.err != nil
	}
	return !s.ended
}

// servedCall is a tool call being streamed. Its fragments wait until its
// id is known, so the first one the agent reads carries it.
type servedCall struct {
	block      int // the block index of its chunks
	index      int // in tool_calls
	sentID     bool
	name, args string // held back until the id
}

// delta returns the tool_calls entry to send for a fragment of the call,
// if any yet.
func (c *servedCall) delta(id, name, args string) (ToolCallDelta, bool) {
	if !c.sentID && id == "" {
		c.name += name
		c.args += args
		return ToolCallDelta{}, false
	}
	index := c.index
	dc := ToolCallDelta{Index: &index, ID: id}
	if !c.sentID {
		dc.Type = "function"
		name, args = c.name+name, c.args+args
		c.sentID = true
	}
	if name != "" {
		dc.Type = "function"
	}
	dc.Function.Name, dc.Function.Arguments = name, args
	return dc, true
}

func (s *stream) chunk(c *session.Chunk) error {
	switch c.Type {
	case session.ChunkTextDelta:
		return s.delta(&Delta{Content: &c.Text})
	case session.ChunkReasoningDelta:
		return s.delta(&Delta{ReasoningContent: &c.Text})
	case session.ChunkToolCallDelta:
		tc := s.call(c.Index)
		if tc == nil {
			s.calls = append(s.calls, servedCall{block: c.Index, index: len(s.calls)})
			tc = &s.calls[len(s.calls)-1]
		}
		if dc, ok := tc.delta(c.ID, c.Name, c.ArgumentsDelta); ok {
			return s.delta(&Delta{ToolCalls: []ToolCallDelta{dc}})
		}
	case session.ChunkBlockEnd:
		// A call whose deltas named no id (a recording from a server that
		// sends none) goes out whole here, with the id the log gave it:
		// the agent must name the same call as the log.
		if tc := s.call(c.Index); tc != nil && !tc.sentID && c.Block != nil && c.Block.Type == session.BlockToolCall {
			tc.name, tc.args = "", ""
			if dc, ok := tc.delta(c.Block.ID, c.Block.Name, c.Block.Arguments); ok {
				return s.delta(&Delta{ToolCalls: []ToolCallDelta{dc}})
			}
		}
	case session.ChunkUsage:
		s.usage = c.Usage
	}
	return nil
}

// call returns the tool call of block index, or nil.
func (s *stream) call(block int) *servedCall {
	for i := range s.calls {
		if s.calls[i].block == block {
			return &s.calls[i]
		}
	}
	return nil
}

// delta sends a frame of one delta, the first announcing the role.
func (s *stream) delta(d *Delta) error {
	d.Role, s.role = s.role, ""
	s.buf = appendFrame(s.start(), s.model, d, nil)
	return s.send()
}

// start begins an event in s.buf.
func (s *stream) start() []byte { return append(s.buf[:0], "data: "...) }

// send ends the event in s.buf, writes it and flushes.
func (s *stream) send() error {
	s.buf = append(s.buf, "\n\n"...)
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	s.flush()
	return nil
}

// finish writes the end of the stream.
func (s *stream) finish(r *session.FinishReason) error {
	if r == nil {
		r = &session.FinishReason{Kind: session.FinishStop}
	}
	switch r.Kind {
	case session.FinishAborted:
		return nil
	case session.FinishError:
		_, code, msg := live.ServedFailure(r)
		b := NewErrorBody(code, msg, ErrorTypeReplay)
		s.buf = appendErrorBody(s.start(), &b)
		return s.send()
	}
	reason := FinishReason(r.Kind)
	s.buf = appendFrame(s.start(), s.model, &Delta{}, &reason)
	if err := s.send(); err != nil {
		return err
	}
	if s.usage != nil {
		s.buf = appendUsageFrame(s.start(), apiUsage(s.usage))
		if err := s.send(); err != nil {
			return err
		}
	}
	s.buf = append(s.buf[:0], "data: [DONE]\n\n"...) // no string copy for a writer without WriteString
	_, err := s.w.Write(s.buf)
	s.flush()
	return err
}
