package anthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"iter"
	"strings"
	"sync"

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

// noFlush is the flush of a writer that needs none.
func noFlush() {}

// ServeStream writes the chunks of one model call to w as the API's
// server-sent events (each with its event line, as the SDKs want), calling
// flush after each (nil for a writer that needs none): message_start, then
// per block content_block_start, its deltas and content_block_stop, then
// message_delta with the stop_reason and the usage, and message_stop. A
// failed call ends with an error event instead; an aborted one just ends,
// as a cut connection does.
//
// The API numbers blocks 0, 1, 2 as they start and names a tool_use
// block's id and name, and whether reasoning is thinking or
// redacted_thinking, in its start event; a block whose chunks have not
// said so yet holds back its start, and every event after it, until they
// do. Text or arguments a block-end has beyond its deltas go out as one
// more delta; a block-end's signature as a signature_delta.
//
// A yield chunks calls once ServeStream returned writes nothing.
func ServeStream(w io.Writer, flush func(), id, model string, chunks iter.Seq[session.Chunk]) error {
	if flush == nil {
		flush = noFlush
	}
	// The writer is the call's own, so a yield kept past the return
	// reaches no other call's stream; only its buffers are pooled.
	s := &streamWriter{streamBufs: streamBufPool.Get().(*streamBufs), w: w, flush: flush}
	s.out = appendMessageStart(s.head(EventMessageStart), id, model)
	if s.err = s.emit(); s.err == nil {
		// Not a range: a range over a dynamic iter.Seq allocates its state.
		// Chunks that end without a finish leave nothing more to send: each
		// chunk's events went out after it, up to a start still unnamed.
		chunks(s.next)
	}
	err := s.err
	s.release() // not deferred: buffers a panicking stream may still write into are not pooled
	return err
}

// streamWriter is the stream of one call.
type streamWriter struct {
	*streamBufs // nil once ServeStream returned
	w           io.Writer
	flush       func()
	usage       *session.Usage
	ended       bool  // by the finish, an error writing or ServeStream's return
	err         error // ServeStream's
}

// streamBufs are a stream's buffers, pooled: an io.Writer keeps nothing it
// is given, and the strings they hold are dropped on release.
type streamBufs struct {
	out     []byte     // the event being written
	blocks  []outBlock // in start order: by the API's index
	pending []queued
	sent    []sentText // the texts of the blocks' deltas
}

var streamBufPool = sync.Pool{New: func() any { return &streamBufs{out: make([]byte, 0, 512)} }}

// release hands s's buffers back to the pool; s ends.
func (s *streamWriter) release() {
	b := s.streamBufs
	s.streamBufs, s.ended = nil, true
	b.out, b.blocks, b.pending, b.sent = kept(b.out, 64<<10), kept(b.blocks, 256), kept(b.pending, 1024), kept(b.sent, 4096)
	streamBufPool.Put(b)
}

// kept is buf emptied for the next stream, or nil when it grew past limit
// elements: an outsized answer's buffer is not kept for every stream after.
func kept[T any](buf []T, limit int) []T {
	if cap(buf) > limit {
		return nil
	}
	clear(buf[:cap(buf)])
	return buf[:0]
}

// outBlock is a block being streamed to the agent.
type outBlock struct {
	key   int    // agentsnap's index
	index int    // the API's: its place in blocks
	typ   string // agentsnap's block type
	ready bool   // its start can go out: its type, id and name are known
	start Block  // what its start event says
	// texts and last are its first and last text in sent, plus one (0:
	// none yet).
	texts, last int
	ended       bool
}

// sentText is the text of one delta, a link in its block's list: the
// chunk's own string, where a copy would cost an allocation per delta.
type sentText struct {
	text string
	next int // the block's next text in sent, plus one (0: none)
}

// queued is an event waiting for the start of its block.
type queued struct {
	typ   string // EventContentBlockStart, EventContentBlockDelta or EventContentBlockStop
	block int    // the API's index
	delta Delta  // a content_block_delta's
}

// next serves one chunk; false once the stream ended.
func (s *streamWriter) next(c session.Chunk) bool {
	switch {
	case s.ended:
	case c.Type == session.ChunkFinish:
		s.err, s.ended = s.finish(c.Reason), true
	default:
		s.chunk(&c)
		s.err = s.send()
		s.ended = s.err != nil
	}
	return !s.ended
}

func (s *streamWriter) queue(typ string, b *outBlock, d Delta) {
	s.pending = append(s.pending, queued{typ, b.index, d})
}

// send writes the pending events up to the first start that must wait.
func (s *streamWriter) send() error {
	n := 0
	for i := range s.pending {
		q := &s.pending[i]
		if q.typ == EventContentBlockStart && !s.blocks[q.block].ready {
			break
		}
		if err := s.write(q); err != nil {
			return err
		}
		n++
	}
	s.pending = s.pending[:copy(s.pending, s.pending[n:])]
	return nil
}

// write writes q, by hand unless it is an event no stream makes.
func (s *streamWriter) write(q *queued) error {
	ok := true
	s.out = s.head(q.typ)
	switch q.typ {
	case EventContentBlockStart:
		s.out, ok = appendBlockStart(s.out, q.block, &s.blocks[q.block].start)
	case EventContentBlockDelta:
		s.out, ok = appendBlockDelta(s.out, q.block, &q.delta)
	default:
		s.out = appendBlockStop(s.out, q.block)
	}
	if ok {
		return s.emit()
	}
	idx := q.block
	ev := &Event{Type: q.typ, Index: &idx}
	if q.typ == EventContentBlockStart {
		start := s.blocks[q.block].start
		ev.ContentBlock = &start
	} else {
		d := q.delta
		ev.Delta = &d
	}
	b, err := session.MarshalData(ev)
	if err != nil {
		return err
	}
	s.out = append(s.head(q.typ), b...)
	return s.emit()
}

// head begins an event of typ in s.out, up to its data.
func (s *streamWriter) head(typ string) []byte {
	return append(append(append(s.out[:0], "event: "...), typ...), "\ndata: "...)
}

// emit ends the event in s.out, writes it in one Write and flushes.
func (s *streamWriter) emit() error {
	s.out = append(s.out, "\n\n"...)
	if _, err := s.w.Write(s.out); err != nil {
		return err
	}
	s.flush()
	return nil
}

// block returns the block of agentsnap's index key, starting it (queued)
// as a block of typ when it is new. The pointer holds until the next call.
func (s *streamWriter) block(key int, typ string) *outBlock {
	// The latest first: most chunks are of the block last started.
	for i := len(s.blocks) - 1; i >= 0; i-- {
		if s.blocks[i].key == key {
			return &s.blocks[i]
		}
	}
	s.blocks = append(s.blocks, outBlock{key: key, index: len(s.blocks), typ: typ})
	b := &s.blocks[len(s.blocks)-1]
	switch typ {
	case session.BlockText:
		b.start, b.ready = Block{Type: TypeText}, true
	case session.BlockToolCall:
		b.start = Block{Type: TypeToolUse, Input: emptyObject}
	default:
		b.start = Block{Type: TypeThinking}
	}
	s.queue(EventContentBlockStart, b, Delta{})
	return b
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

// text queues a delta of b's kind with text, if any, and notes it sent.
func (s *streamWriter) text(b *outBlock, text string) {
	if text == "" || b.ended {
		return
	}
	s.sent = append(s.sent, sentText{text: text})
	if b.last > 0 {
		s.sent[b.last-1].next = len(s.sent)
	} else {
		b.texts = len(s.sent)
	}
	b.last = len(s.sent)
	switch b.typ {
	case session.BlockText:
		s.queue(EventContentBlockDelta, b, Delta{Type: DeltaText, Text: text})
	case session.BlockToolCall:
		s.queue(EventContentBlockDelta, b, Delta{Type: DeltaInputJSON, PartialJSON: text})
	default:
		s.queue(EventContentBlockDelta, b, Delta{Type: DeltaThinking, Thinking: text})
	}
}

// rest is what full has beyond the texts b sent, if they are its start.
func (s *streamWriter) rest(b *outBlock, full string) (string, bool) {
	for i := b.texts; i > 0; i = s.sent[i-1].next {
		t := s.sent[i-1].text
		if !strings.HasPrefix(full, t) {
			return "", false
		}
		full = full[len(t):]
	}
	return full, true
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
	if b.start.Type != TypeRedactedThinking {
		if rest, ok := s.rest(b, full); ok {
			s.text(b, rest)
		}
	}
	if b.start.Type == TypeThinking && meta.Signature != "" {
		s.queue(EventContentBlockDelta, b, Delta{Type: DeltaSignature, Signature: meta.Signature})
	}
	s.stop(b)
}

// stop queues b's content_block_stop.
func (s *streamWriter) stop(b *outBlock) {
	b.ended = true
	s.queue(EventContentBlockStop, b, Delta{})
}

// finish writes the end of the stream for a finish with reason r.
func (s *streamWriter) finish(r *session.FinishReason) error {
	kind := session.FinishStop
	if r != nil {
		kind = r.Kind
	}
	switch kind {
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
		s.out = appendErrorEvent(s.head(EventError), &body.Error)
		return s.emit()
	}
	// Blocks the chunks never ended (or named) go out as they are.
	for i := range s.blocks {
		if b := &s.blocks[i]; !b.ended {
			b.ready = true
			s.stop(b)
		}
	}
	if err := s.send(); err != nil {
		return err
	}
	s.out = appendMessageDelta(s.head(EventMessageDelta), StopReason(kind), s.usage)
	if err := s.emit(); err != nil {
		return err
	}
	s.out = append(s.head(EventMessageStop), `{"type":"message_stop"}`...)
	return s.emit()
}
