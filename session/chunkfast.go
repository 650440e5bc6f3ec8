package session

import "github.com/agentsnap/agentsnap/internal/jsonscan"

// decodeCanonical decodes b when it has exactly the layout AppendJSON writes
// for the chunks that make most of a log — deltas and block starts — and
// reports whether it did. Anything else (another chunk type, members in
// another order, spaces, unknown members, a number that is not a plain
// integer) is left to decodeMembers, which gives the same result for what
// this accepts: the tests compare the two. It reads b once, where
// decodeMembers walks the chunk twice through callbacks.
func (d *ChunkData) decodeCanonical(b []byte) bool {
	return d.canonical(&cursor{b: b})
}

// CanonicalChunkData reports whether data is an assistant/chunk payload
// exactly as ChunkData.AppendJSON writes a delta or a block start. Such
// data is one valid JSON object on one line, so a writer that checks what
// it stores can take it without scanning it as any JSON; anything else
// needs that scan.
func CanonicalChunkData(data []byte) bool {
	var d ChunkData
	return d.canonical(&cursor{b: data, check: true})
}

func (d *ChunkData) canonical(p *cursor) bool {
	b := p.b
	var ok bool
	if !p.lit(`{"turn":`) {
		return false
	}
	if d.Turn, ok = p.int(); !ok || !p.lit(`,"step":`) {
		return false
	}
	if d.Step, ok = p.int(); !ok {
		return false
	}
	if p.lit(`,"attempt":`) {
		if d.Attempt, ok = p.int(); !ok {
			return false
		}
	}
	c := &d.Chunk
	switch {
	case !p.lit(`,"chunk":{"type":`):
		return false
	case p.lit(`"text-delta"`):
		c.Type = ChunkTextDelta
	case p.lit(`"reasoning-delta"`):
		c.Type = ChunkReasoningDelta
	case p.lit(`"tool-call-delta"`):
		c.Type = ChunkToolCallDelta
	case p.lit(`"block-start"`):
		c.Type = ChunkBlockStart
	default:
		return false
	}
	if !p.lit(`,"index":`) {
		return false
	}
	if c.Index, ok = p.int(); !ok {
		return false
	}
	switch c.Type {
	case ChunkTextDelta, ChunkReasoningDelta:
		ok = p.lit(`,"text":`) && p.str(&c.Text)
	case ChunkBlockStart:
		ok = p.lit(`,"blockType":`) && p.interned(&c.BlockType)
	case ChunkToolCallDelta:
		ok = (!p.lit(`,"id":`) || p.str(&c.ID)) && (!p.lit(`,"name":`) || p.str(&c.Name)) &&
			p.lit(`,"argumentsDelta":`) && p.str(&c.ArgumentsDelta)
	}
	return ok && p.lit(`}}`) && p.i == len(b)
}

// cursor reads a JSON text from left to right. With check set it only
// validates strings, decoding none.
type cursor struct {
	b     []byte
	i     int
	check bool
}

// lit consumes s if the text continues with it.
func (p *cursor) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// int consumes an integer written as JSON writes it: an optional minus,
// no leading zero, at most 18 digits (so it cannot overflow).
func (p *cursor) int() (int, bool) {
	neg := p.i < len(p.b) && p.b[p.i] == '-'
	if neg {
		p.i++
	}
	start, n := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		n = n*10 + int(p.b[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || digits > 18 || (digits > 1 && p.b[start] == '0') {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// str consumes a valid JSON string and decodes it into s.
func (p *cursor) str(s *string) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	end, _, err := jsonscan.SkipString(p.b, p.i)
	if err != nil {
		return false
	}
	if p.check {
		p.i = end
		return true
	}
	v, err := jsonscan.String(p.b[p.i:end])
	if err != nil {
		return false
	}
	*s, p.i = v, end
	return true
}

// interned is str for a string that is usually a known chunk or block type.
func (p *cursor) interned(s *string) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	end, _, err := jsonscan.SkipString(p.b, p.i)
	if err != nil {
		return false
	}
	if p.check {
		p.i = end
		return true
	}
	v, err := internString(knownChunkTypes, p.b[p.i:end])
	if err != nil {
		return false
	}
	*s, p.i = v, end
	return true
}
