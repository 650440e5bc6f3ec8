package responses

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// DecodeBody decodes body as the event stream of a 200 answer from a
// driver holding these secrets, and returns every chunk it yields.
func DecodeBody(ctx context.Context, body io.Reader, secrets ...string) []session.Chunk {
	var out []session.Chunk
	sc := live.NewScrubber(API, secrets...)
	live.DecodeStream(ctx, body, newDecoder(sc), sc, func(c session.Chunk) bool {
		out = append(out, c)
		return true
	})
	return out
}

// CheckProtocol returns an error naming the first way chunks break the
// stream protocol of the package doc, or nil: blocks start in index order,
// deltas belong to a started block of their type that has not ended, a
// tool call's id and name come once, each block ends once with what its
// deltas said, usage at most once after every delta, and exactly one
// finish, last, with every block ended unless the call failed.
func CheckProtocol(chunks []session.Chunk) error {
	var p protocol
	for i, c := range chunks {
		if err := p.add(c, i == len(chunks)-1); err != nil {
			return fmt.Errorf("chunk %d (%s): %w", i, c.Type, err)
		}
	}
	if !p.finished {
		return errors.New("no finish chunk")
	}
	return nil
}

type protoBlock struct {
	typ      string
	text     strings.Builder
	id, name string
	ended    bool
}

type protocol struct {
	blocks   []*protoBlock
	usage    bool
	finished bool
}

func (p *protocol) add(c session.Chunk, last bool) error {
	if p.finished {
		return errors.New("after the finish")
	}
	switch c.Type {
	case session.ChunkBlockStart:
		if c.Index != len(p.blocks) {
			return fmt.Errorf("index %d, want %d (the next in start order)", c.Index, len(p.blocks))
		}
		p.blocks = append(p.blocks, &protoBlock{typ: c.BlockType})
	case session.ChunkTextDelta, session.ChunkReasoningDelta, session.ChunkToolCallDelta:
		return p.delta(c)
	case session.ChunkBlockEnd:
		return p.end(c)
	case session.ChunkUsage:
		if p.usage || c.Usage == nil {
			return errors.New("a second or empty usage")
		}
		p.usage = true
	case session.ChunkFinish:
		return p.finish(c, last)
	default:
		return errors.New("unknown chunk type")
	}
	return nil
}

func (p *protocol) open(i int, typ string) (*protoBlock, error) {
	switch {
	case i < 0 || i >= len(p.blocks):
		return nil, fmt.Errorf("block %d never started", i)
	case p.blocks[i].typ != typ:
		return nil, fmt.Errorf("block %d is %s, not %s", i, p.blocks[i].typ, typ)
	case p.blocks[i].ended:
		return nil, fmt.Errorf("block %d already ended", i)
	case p.usage:
		return nil, errors.New("after the usage")
	}
	return p.blocks[i], nil
}

func (p *protocol) delta(c session.Chunk) error {
	typ := map[string]string{
		session.ChunkTextDelta:      session.BlockText,
		session.ChunkReasoningDelta: session.BlockReasoning,
		session.ChunkToolCallDelta:  session.BlockToolCall,
	}[c.Type]
	b, err := p.open(c.Index, typ)
	if err != nil {
		return err
	}
	if typ != session.BlockToolCall {
		if c.Text == "" {
			return errors.New("empty delta")
		}
		b.text.WriteString(c.Text)
		return nil
	}
	if (c.ID != "" && b.id != "") || (c.Name != "" && b.name != "") {
		return errors.New("id or name announced twice")
	}
	b.id, b.name = b.id+c.ID, b.name+c.Name
	b.text.WriteString(c.ArgumentsDelta)
	return nil
}

func (p *protocol) end(c session.Chunk) error {
	if c.Index < 0 || c.Index >= len(p.blocks) {
		return fmt.Errorf("block %d never started", c.Index)
	}
	b, err := p.open(c.Index, p.blocks[c.Index].typ)
	if err != nil {
		return err
	}
	switch {
	case c.Block == nil || c.Block.Type != b.typ:
		return errors.New("block-end without a block of the started type")
	case b.typ != session.BlockToolCall && c.Block.Text != b.text.String():
		return fmt.Errorf("block text %q, deltas say %q", c.Block.Text, b.text.String())
	case b.typ == session.BlockToolCall && (c.Block.Arguments != b.text.String() || c.Block.Name != b.name ||
		c.Block.ID == "" || c.Block.ID != b.id):
		return fmt.Errorf("tool call block %+v disagrees with its deltas", *c.Block)
	}
	b.ended = true
	return nil
}

func (p *protocol) finish(c session.Chunk, last bool) error {
	if !last || c.Reason == nil {
		return errors.New("finish is not the last chunk or has no reason")
	}
	p.finished = true
	calls := false
	for _, b := range p.blocks {
		calls = calls || b.typ == session.BlockToolCall
		if !b.ended && (c.Reason.Kind != session.FinishError && c.Reason.Kind != session.FinishAborted) {
			return fmt.Errorf("%s finish with an open block", c.Reason.Kind)
		}
	}
	switch c.Reason.Kind {
	case session.FinishStop, session.FinishToolCalls:
		if calls != (c.Reason.Kind == session.FinishToolCalls) {
			return fmt.Errorf("%s finish, tool calls present: %v", c.Reason.Kind, calls)
		}
	case session.FinishError:
		if f := c.Reason.Failure; f == nil || f.Code == "" || f.Message == "" {
			return errors.New("error finish without code and message")
		}
	}
	return nil
}

// RetainedMedia returns how many blocks of images and files s keeps for
// the responses it served (each once, however many chains share it):
// those a later request may name by previous_response_id.
func (s *Served) RetainedMedia() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[*media]bool{}
	n := 0
	for _, r := range s.responses {
		for m := r.media; m != nil && !seen[m]; m = m.earlier {
			seen[m] = true
			n += len(m.own)
		}
	}
	return n
}
