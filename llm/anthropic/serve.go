package anthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// MessageID is the id of the answer to the model call key: the same in
// the recording and every replay.
func MessageID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "msg_agentsnap_" + hex.EncodeToString(sum[:12])
}

// StopReason is the stop_reason of a finish kind.
func StopReason(kind string) string {
	switch kind {
	case session.FinishToolCalls:
		return "tool_use"
	case session.FinishMaxTokens:
		return "max_tokens"
	}
	return "end_turn"
}

// ErrorType is the API's error type for a failure code (package live's,
// or the wire layer's).
func ErrorType(code string) string {
	switch code {
	case "AUTH":
		return "authentication_error"
	case "RATE_LIMIT":
		return "rate_limit_error"
	case "BAD_REQUEST", "AGENTSNAP", "CONTENT_FILTER":
		return "invalid_request_error"
	case "NOT_FOUND":
		return "not_found_error"
	}
	return "api_error"
}

// NewErrorBody is an error answer's body.
func NewErrorBody(code, message string) ErrorBody {
	return ErrorBody{Type: "error", Error: ErrorDetail{Type: ErrorType(code), Message: message}}
}

// Whole is the whole answer (a request without stream) for an assembled
// message, its usage and how it finished (a finish that is not an error).
func Whole(id, model string, msg session.Message, usage *session.Usage, kind string) Response {
	content := []Block{}
	for _, p := range msg.Content {
		switch p.Type {
		case session.PartText:
			content = append(content, Block{Type: TypeText, Text: p.Text})
		case session.PartReasoning:
			content = append(content, reasoningBlock(p.Text, MetaOf(p.Meta)))
		case session.PartToolCall:
			content = append(content, Block{Type: TypeToolUse, ID: p.ID, Name: p.Name, Input: toolInput(p.Arguments)})
		}
	}
	reason := StopReason(kind)
	return Response{ID: id, Type: "message", Role: session.RoleAssistant, Content: content, Model: model,
		StopReason: &reason, Usage: apiUsage(usage)}
}

// reasoningBlock is the block a reasoning part or block goes out as: the
// redacted_thinking its meta names, else thinking with its signature.
func reasoningBlock(text string, m Meta) Block {
	if m.Data != "" && text == "" {
		return Block{Type: TypeRedactedThinking, Data: m.Data}
	}
	return Block{Type: TypeThinking, Thinking: text, Signature: m.Signature}
}

// apiUsage is agentsnap's usage in the API's terms: the input without the
// tokens read from the cache. Nil gives zero counts.
func apiUsage(u *session.Usage) *Usage {
	in, out := 0, 0
	res := &Usage{InputTokens: &in, OutputTokens: &out}
	if u == nil {
		return res
	}
	in, out = u.InputTokens, u.OutputTokens
	if u.CacheReadTokens != nil {
		read := *u.CacheReadTokens
		in = max(in-read, 0)
		res.CacheReadInputTokens = &read
	}
	if u.ReasoningTokens != nil {
		thinking := *u.ReasoningTokens
		res.OutputTokensDetails = &OutputTokensDetails{ThinkingTokens: &thinking}
	}
	return res
}

// ServeStream writes the chunks of one model call to w as the API's
// server-sent events (each with its event line, as the SDKs want), calling
// flush after each: message_start, then per block content_block_start, its
// deltas and content_block_stop, then message_delta with the stop_reason
// and the usage, and message_stop. A failed call ends with an error event
// instead; an aborted one just ends, as a cut connection does.
//
// The API numbers blocks 0, 1, 2 as they start and names a tool_use
// block's id and name, and whether reasoning is thinking or
// redacted_thinking, in its start event; a block whose chunks have not
// said so yet holds back its start, and every event after it, until they
// do. Text or arguments a block-end has beyond its deltas go out as one
// more delta; a block-end's signature as a signature_delta.
func ServeStream(w io.Writer, flush func(), id, model string, chunks iter.Seq[session.Chunk]) error {
	s := &streamWriter{w: w, flush: flush, byIndex: map[int]*outBlock{}}
	s.queue(&Event{Type: EventMessageStart, Message: &Response{ID: id, Type: "message", Role: session.RoleAssistant,
		Content: []Block{}, Model: model, Usage: apiUsage(nil)}}, nil)
	if err := s.send(); err != nil {
		return err
	}
	for c := range chunks {
		if c.Type == session.ChunkFinish {
			return s.finish(c.Reason)
		}
		s.chunk(&c)
		if err := s.send(); err != nil {
			return err
		}
	}
	return s.send()
}

// outBlock is a block being streamed to the agent.
type outBlock struct {
	index int    // the API's
	typ   string // agentsnap's block type
	ready bool   // its start can go out: its type, id and name are known
	start Block  // what its start event says
	sent  strings.Builder
	ended bool
}

// queued is an event waiting for the start of block (nil: for nothing).
type queued struct {
	ev    *Event
	block *outBlock
}

type streamWriter struct {
	w       io.Writer
	flush   func()
	byIndex map[int]*outBlock // by agentsnap's index
	blocks  []*outBlock       // in start order
	pending []queued
	usage   *session.Usage
}

func (s *streamWriter) queue(ev *Event, b *outBlock) {
	s.pending = append(s.pending, queued{ev, b})
}

// send writes the pending events up to the first start that must wait.
func (s *streamWriter) send() error {
	n := 0
	for _, q := range s.pending {
		if q.block != nil && q.ev.Type == EventContentBlockStart {
			if !q.block.ready {
				break
			}
			start := q.block.start
			q.ev.ContentBlock = &start
		}
		if err := s.write(q.ev); err != nil {
			return err
		}
		n++
	}
	s.pending = s.pending[:copy(s.pending, s.pending[n:])]
	return nil
}

func (s *streamWriter) write(ev *Event) error {
	b, err := marshal(ev)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", ev.Type, b); err != nil {
		return err
	}
	s.flush()
	return nil
}

// block returns the block of agentsnap's index i, starting it (queued) as
// a block of typ when it is new.
func (s *streamWriter) block(i int, typ string) *outBlock {
	if b := s.byIndex[i]; b != nil {
		return b
	}
	b := &outBlock{index: len(s.blocks), typ: typ}
	switch typ {
	case session.BlockText:
		b.start, b.ready = Block{Type: TypeText}, true
	case session.BlockToolCall:
		b.start = Block{Type: TypeToolUse, Input: emptyObject}
	default:
		b.start = Block{Type: TypeThinking}
	}
	s.byIndex[i] = b
	s.blocks = append(s.blocks, b)
	idx := b.index
	s.queue(&Event{Type: EventContentBlockStart, Index: &idx}, b)
	return b
}

// delta queues a content_block_delta of b.
func (s *streamWriter) delta(b *outBlock, d Delta) {
	idx := b.index
	s.queue(&Event{Type: EventContentBlockDelta, Index: &idx, Delta: &d}, b)
}

func (s *streamWriter) chunk(c *session.Chunk) {
	switch c.Type {
	case session.ChunkBlockStart:
		s.block(c.Index, c.BlockType)
	case session.ChunkTextDelta:
		s.text(s.block(c.Index, session.BlockText), c.Text)
	case session.ChunkReasoningDelta:
		b := s.block(c.Index, session.BlockReasoning)
		b.ready = true // deltas: thinking, not redacted
		s.text(b, c.Text)
	case session.ChunkToolCallDelta:
		b := s.block(c.Index, session.BlockToolCall)
		if !b.ready {
			// The first id and name seen win, as in llm.Assembler.
			if b.start.ID == "" {
				b.start.ID = c.ID
			}
			if b.start.Name == "" {
				b.start.Name = c.Name
			}
			b.ready = b.start.ID != "" && b.start.Name != ""
		}
		s.text(b, c.ArgumentsDelta)
	case session.ChunkBlockEnd:
		if c.Block != nil {
			s.end(s.block(c.Index, c.Block.Type), c.Block)
		}
	case session.ChunkUsage:
		s.usage = c.Usage
	}
}

// text queues a delta of b's kind with text, if any.
func (s *streamWriter) text(b *outBlock, text string) {
	if text == "" || b.ended {
		return
	}
	b.sent.WriteString(text)
	switch b.typ {
	case session.BlockText:
		s.delta(b, Delta{Type: DeltaText, Text: text})
	case session.BlockToolCall:
		s.delta(b, Delta{Type: DeltaInputJSON, PartialJSON: text})
	default:
		s.delta(b, Delta{Type: DeltaThinking, Thinking: text})
	}
}

// end closes b with what its block-end says, which wins over its deltas.
func (s *streamWriter) end(b *outBlock, blk *session.Block) {
	if b.ended {
		return
	}
	full := blk.Text
	meta := MetaOf(blk.Meta)
	switch b.typ {
	case session.BlockToolCall:
		full = blk.Arguments
		if !b.ready {
			b.start.ID, b.start.Name = blk.ID, blk.Name
		}
	case session.BlockReasoning:
		// Unnamed until now: a redacted_thinking block says all in its
		// start; a thinking block's text and signature follow as deltas.
		if !b.ready && reasoningBlock(blk.Text, meta).Type == TypeRedactedThinking {
			b.start = Block{Type: TypeRedactedThinking, Data: meta.Data}
		}
	}
	b.ready = true
	if sent := b.sent.String(); b.start.Type != TypeRedactedThinking && strings.HasPrefix(full, sent) {
		s.text(b, full[len(sent):])
	}
	if b.start.Type == TypeThinking && meta.Signature != "" {
		s.delta(b, Delta{Type: DeltaSignature, Signature: meta.Signature})
	}
	s.stop(b)
}

// stop queues b's content_block_stop.
func (s *streamWriter) stop(b *outBlock) {
	b.ended = true
	idx := b.index
	s.queue(&Event{Type: EventContentBlockStop, Index: &idx}, b)
}

// finish writes the end of the stream for a finish with reason r.
func (s *streamWriter) finish(r *session.FinishReason) error {
	if r == nil {
		r = &session.FinishReason{Kind: session.FinishStop}
	}
	switch r.Kind {
	case session.FinishAborted:
		return s.send() // what could go out did; the connection is cut
	case session.FinishError:
		if err := s.send(); err != nil {
			return err
		}
		code, msg := "", "the model call failed"
		if r.Failure != nil {
			code, msg = r.Failure.Code, r.Failure.Message
		}
		body := NewErrorBody(code, msg)
		return s.write(&Event{Type: EventError, Error: &body.Error})
	}
	// Blocks the chunks never ended (or named) go out as they are.
	for _, b := range s.blocks {
		if !b.ended {
			b.ready = true
			s.stop(b)
		}
	}
	if err := s.send(); err != nil {
		return err
	}
	reason, _ := json.Marshal(StopReason(r.Kind))
	if err := s.write(&Event{Type: EventMessageDelta, Delta: &Delta{StopReason: reason, StopSequence: json.RawMessage("null")},
		Usage: apiUsage(s.usage)}); err != nil {
		return err
	}
	return s.write(&Event{Type: EventMessageStop})
}
