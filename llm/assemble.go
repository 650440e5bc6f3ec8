package llm

import (
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Assembler builds the assistant message of one model call from its chunks.
// Blocks appear in the message in the order they started. The zero value is
// ready to use; an Assembler is not safe for concurrent use.
type Assembler struct {
	blocks []block // in the order they started
	usage  *session.Usage
	finish *session.FinishReason
}

type block struct {
	index    int
	typ      string
	text     deltas
	id, name string
	done     *session.Block
}

// deltas are a block's text as its deltas came. The usual one delta is
// kept as given; a builder joins them from the second on.
type deltas struct {
	first string
	n     int
	more  *strings.Builder
}

func (d *deltas) add(s string) {
	switch d.n {
	case 0:
		d.first = s
	case 1:
		d.more = &strings.Builder{}
		d.more.WriteString(d.first)
		d.more.WriteString(s)
	default:
		d.more.WriteString(s)
	}
	d.n++
}

func (d *deltas) String() string {
	if d.n <= 1 {
		return d.first
	}
	return d.more.String()
}

// block returns the block of index i, started as typ if it is new. The
// pointer holds until the next block starts.
func (a *Assembler) block(i int, typ string) *block {
	for k := range a.blocks {
		if a.blocks[k].index == i {
			return &a.blocks[k]
		}
	}
	a.blocks = append(a.blocks, block{index: i, typ: typ})
	return &a.blocks[len(a.blocks)-1]
}

// Add feeds one chunk.
func (a *Assembler) Add(c Chunk) {
	switch c.Type {
	case session.ChunkBlockStart:
		a.block(c.Index, c.BlockType)
	case session.ChunkTextDelta:
		a.block(c.Index, session.BlockText).text.add(c.Text)
	case session.ChunkReasoningDelta:
		a.block(c.Index, session.BlockReasoning).text.add(c.Text)
	case session.ChunkToolCallDelta:
		// The first delta that names the call wins: providers send id and
		// name once, and a later stray value must not rename the call.
		b := a.block(c.Index, session.BlockToolCall)
		if b.id == "" {
			b.id = c.ID
		}
		if b.name == "" {
			b.name = c.Name
		}
		b.text.add(c.ArgumentsDelta)
	case session.ChunkBlockEnd:
		if c.Block != nil {
			a.block(c.Index, c.Block.Type).done = c.Block
		}
	case session.ChunkUsage:
		a.usage = c.Usage
	case session.ChunkFinish:
		a.finish = c.Reason
	}
}

// Message returns the assembled assistant message. A block-end's complete
// block wins over the deltas seen for it.
func (a *Assembler) Message() Message {
	m := Message{Role: session.RoleAssistant, Content: make([]session.Part, 0, len(a.blocks))}
	for i := range a.blocks {
		b := &a.blocks[i]
		var p session.Part
		switch {
		case b.done != nil && b.done.Type == session.BlockToolCall:
			p = session.Part{Type: session.PartToolCall, ID: b.done.ID, Name: b.done.Name, Arguments: b.done.Arguments, Meta: b.done.Meta}
		case b.done != nil:
			p = session.Part{Type: b.done.Type, Text: b.done.Text, Meta: b.done.Meta}
		case b.typ == session.BlockToolCall:
			p = session.Part{Type: session.PartToolCall, ID: b.id, Name: b.name, Arguments: b.text.String()}
		default:
			p = session.Part{Type: b.typ, Text: b.text.String()}
		}
		m.Content = append(m.Content, p)
	}
	return m
}

// Usage returns the usage chunk's accounting, or nil if there was none.
func (a *Assembler) Usage() *session.Usage { return a.usage }

// Finish returns the finish reason, or nil if the stream had none.
func (a *Assembler) Finish() *session.FinishReason { return a.finish }
