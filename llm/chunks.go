package llm

import (
	"unicode"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/session"
)

// StreamMessage returns the chunks a provider would stream for the assistant
// message m: per content part a block-start, deltas of a few characters to a
// word each, a block-end with the complete block, then usage (when non-nil)
// and a finish of kind finish ("" picks tool-calls when m calls tools, else
// stop). A part's Meta (what the API wants back) rides on its block-end. Scripted and playbook drivers use it so offline recordings look like
// live ones.
func StreamMessage(m Message, usage *session.Usage, finish string) []Chunk {
	var out []Chunk
	calls := false
	for i, p := range m.Content {
		switch p.Type {
		case session.PartToolCall:
			calls = true
			out = append(out, Chunk{Type: session.ChunkBlockStart, Index: i, BlockType: session.BlockToolCall})
			for j, piece := range SplitDeltas(p.Arguments) {
				c := Chunk{Type: session.ChunkToolCallDelta, Index: i, ArgumentsDelta: piece}
				if j == 0 {
					c.ID, c.Name = p.ID, p.Name
				}
				out = append(out, c)
			}
			if p.Arguments == "" {
				out = append(out, Chunk{Type: session.ChunkToolCallDelta, Index: i, ID: p.ID, Name: p.Name})
			}
			out = append(out, Chunk{Type: session.ChunkBlockEnd, Index: i, Block: &session.Block{Type: session.BlockToolCall, ID: p.ID, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta}})
		case session.PartText, session.PartReasoning:
			blockType, delta := session.BlockText, session.ChunkTextDelta
			if p.Type == session.PartReasoning {
				blockType, delta = session.BlockReasoning, session.ChunkReasoningDelta
			}
			out = append(out, Chunk{Type: session.ChunkBlockStart, Index: i, BlockType: blockType})
			for _, piece := range SplitDeltas(p.Text) {
				out = append(out, Chunk{Type: delta, Index: i, Text: piece})
			}
			out = append(out, Chunk{Type: session.ChunkBlockEnd, Index: i, Block: &session.Block{Type: blockType, Text: p.Text, Meta: p.Meta}})
		}
	}
	if usage != nil {
		u := *usage
		out = append(out, Chunk{Type: session.ChunkUsage, Usage: &u})
	}
	if finish == "" {
		finish = session.FinishStop
		if calls {
			finish = session.FinishToolCalls
		}
	}
	return append(out, session.Finish(finish))
}

// SplitDeltas cuts s the way a model streams it: each piece is a word with
// the space before it, and long words are cut every 8 bytes at a rune
// boundary. Joining the pieces gives s back, byte for byte, even when s is
// not valid UTF-8.
func SplitDeltas(s string) []string {
	var out []string
	start := 0
	prevSpace := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if i > start && space && !prevSpace {
			out = append(out, cutLong(s[start:i])...)
			start = i
		}
		prevSpace = space
	}
	if start < len(s) {
		out = append(out, cutLong(s[start:])...)
	}
	return out
}

// cutLong cuts w into pieces of at most 8 bytes, ending each at a rune
// boundary. It slices w rather than re-encoding runes, so invalid UTF-8
// survives unchanged.
func cutLong(w string) []string {
	const max = 8
	if len(w) <= max {
		return []string{w}
	}
	var out []string
	start := 0
	for i := range w {
		_, size := utf8.DecodeRuneInString(w[i:])
		if i > start && i-start+size > max {
			out = append(out, w[start:i])
			start = i
		}
	}
	return append(out, w[start:])
}
