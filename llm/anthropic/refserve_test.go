package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// refServeStream is ServeStream as it was before its events were written
// by hand: every event an Event marshalled by encoding/json (marshal), a
// range over chunks, fmt.Fprintf per event. The fuzz target and the specs
// hold the hand-written writer to its bytes.
func refServeStream(w io.Writer, flush func(), id, model string, chunks iter.Seq[session.Chunk]) error {
	s := &refWriter{w: w, flush: flush, byIndex: map[int]*refBlock{}}
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

// refBlock is a block being streamed to the agent.
type refBlock struct {
	index int    // the API's
	typ   string // agentsnap's block type
	ready bool   // its start can go out: its type, id and name are known
	start Block  // what its start event says
	sent  strings.Builder
	ended bool
}

// refQueued is an event waiting for the start of block (nil: for nothing).
type refQueued struct {
	ev    *Event
	block *refBlock
}

type refWriter struct {
	w       io.Writer
	flush   func()
	byIndex map[int]*refBlock // by agentsnap's index
	blocks  []*refBlock       // in start order
	pending []refQueued
	usage   *session.Usage
}

func (s *refWriter) queue(ev *Event, b *refBlock) {
	s.pending = append(s.pending, refQueued{ev, b})
}

// send writes the pending events up to the first start that must wait.
func (s *refWriter) send() error {
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

func (s *refWriter) write(ev *Event) error {
	b, err := session.MarshalData(ev)
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
func (s *refWriter) block(i int, typ string) *refBlock {
	if b := s.byIndex[i]; b != nil {
		return b
	}
	b := &refBlock{index: len(s.blocks), typ: typ}
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
func (s *refWriter) delta(b *refBlock, d Delta) {
	idx := b.index
	s.queue(&Event{Type: EventContentBlockDelta, Index: &idx, Delta: &d}, b)
}

func (s *refWriter) chunk(c *session.Chunk) {
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
func (s *refWriter) text(b *refBlock, text string) {
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
func (s *refWriter) end(b *refBlock, blk *session.Block) {
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
func (s *refWriter) stop(b *refBlock) {
	b.ended = true
	idx := b.index
	s.queue(&Event{Type: EventContentBlockStop, Index: &idx}, b)
}

// finish writes the end of the stream for a finish with reason r.
func (s *refWriter) finish(r *session.FinishReason) error {
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
