package llm

import (
	"sync"

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
// kept as given; from the second on they are joined in a pooled buffer, so
// the text costs one allocation (the string) however many deltas came.
type deltas struct {
	first string
	n     int
	more  *[]byte
}

// joinBuffers holds the buffers deltas join in: a call's text grows delta
// by delta, and a buffer of its own would grow by doubling, an allocation
// each time, on every model call.
var joinBuffers = sync.Pool{New: func() any { return new([]byte) }}

func (d *deltas) add(s string) {
	switch d.n {
	case 0:
		d.first = s
	case 1:
		d.more = joinBuffers.Get().(*[]byte)
		*d.more = append(append((*d.more)[:0], d.first...), s...)
	default:
		*d.more = append(*d.more, s...)
	}
	d.n++
}

// String returns the text. It gives the buffer back: the deltas are then
// one, the text, and a later one joins it anew.
func (d *deltas) String() string {
	if d.n > 1 {
		s := string(*d.more)
		d.drop()
		d.first, d.n = s, 1
	}
	return d.first
}

// drop forgets the deltas, giving the buffer back.
func (d *deltas) drop() {
	if d.more != nil && cap(*d.more) <= maxPooledJoin {
		joinBuffers.Put(d.more)
	}
	*d = deltas{}
}

// maxPooledJoin bounds the buffers kept for reuse: one long answer must
// not keep its buffer's memory for the life of the process.
const maxPooledJoin = 64 << 10

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
			b := a.block(c.Index, c.Block.Type)
			b.done = c.Block
			b.text.drop() // the complete block wins over them
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
