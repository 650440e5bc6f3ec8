package llm

import (
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Assembler builds the assistant message of one model call from its chunks.
// Blocks appear in the message in the order they started. The zero value is
// ready to use; an Assembler is not safe for concurrent use.
type Assembler struct {
	blocks map[int]*block
	order  []int
	usage  *session.Usage
	finish *session.FinishReason
}

type block struct {
	typ      string
	text     strings.Builder
	id, name string
	done     *session.Block
}

// Add feeds one chunk.
func (a *Assembler) Add(c Chunk) {
	if a.blocks == nil {
		a.blocks = map[int]*block{}
	}
	get := func(i int, typ string) *block {
		b, ok := a.blocks[i]
		if !ok {
			b = &block{typ: typ}
			a.blocks[i] = b
			a.order = append(a.order, i)
		}
		return b
	}
	switch c.Type {
	case session.ChunkBlockStart:
		get(c.Index, c.BlockType)
	case session.ChunkTextDelta:
		get(c.Index, session.BlockText).text.WriteString(c.Text)
	case session.ChunkReasoningDelta:
		get(c.Index, session.BlockReasoning).text.WriteString(c.Text)
	case session.ChunkToolCallDelta:
		// The first delta that names the call wins: providers send id and
		// name once, and a later stray value must not rename the call.
		b := get(c.Index, session.BlockToolCall)
		if b.id == "" {
			b.id = c.ID
		}
		if b.name == "" {
			b.name = c.Name
		}
		b.text.WriteString(c.ArgumentsDelta)
	case session.ChunkBlockEnd:
		if c.Block != nil {
			get(c.Index, c.Block.Type).done = c.Block
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
	m := Message{Role: session.RoleAssistant, Content: []session.Part{}}
	for _, i := range a.order {
		b := a.blocks[i]
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
