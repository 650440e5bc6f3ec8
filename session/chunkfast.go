package session

import (
	"bytes"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// decodeCanonical decodes b when it has exactly the layout AppendJSON writes
// for a chunk — every type the runtime writes, a block without meta — and
// reports whether it did. Anything else (another chunk type, members in
// another order, spaces, unknown members, a number that is not a plain
// integer) is left to decodeMembers, which gives the same result for what
// this accepts: the tests compare the two. It reads b once, where
// decodeMembers walks the chunk twice through callbacks.
func (d *ChunkData) decodeCanonical(b []byte) bool {
	return d.canonical(&cursor{b: b})
}

// CanonicalChunkData reports whether data is an assistant/chunk payload
// exactly as ChunkData.AppendJSON writes one (a block without meta). Such
// data is one valid JSON object on one line, so a writer that checks what
// it stores can take it without scanning it as any JSON; anything else
// needs that scan.
func CanonicalChunkData(data []byte) bool {
	var d ChunkData
	return d.canonical(&cursor{b: data, check: true})
}

func (d *ChunkData) canonical(p *cursor) bool {
	if !p.turnStep(&d.Turn, &d.Step) || (p.lit(`,"attempt":`) && !p.num(&d.Attempt)) {
		return false
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
	case p.lit(`"block-end"`):
		c.Type = ChunkBlockEnd
	case p.lit(`"usage"`):
		return p.lit(`,"usage":`) && p.usageOf(&c.Usage) && p.lit(`}}`) && p.i == len(p.b) && p.typed(c, ChunkUsage)
	case p.lit(`"finish"`):
		return p.lit(`,"reason":`) && p.reason(&c.Reason) && p.lit(`}}`) && p.i == len(p.b) && p.typed(c, ChunkFinish)
	default:
		return false
	}
	if !p.lit(`,"index":`) || !p.num(&c.Index) {
		return false
	}
	var ok bool
	switch c.Type {
	case ChunkTextDelta, ChunkReasoningDelta:
		ok = p.lit(`,"text":`) && p.str(&c.Text)
	case ChunkBlockStart:
		ok = p.lit(`,"blockType":`) && p.interned(&c.BlockType)
	case ChunkToolCallDelta:
		ok = (!p.lit(`,"id":`) || p.str(&c.ID)) && (!p.lit(`,"name":`) || p.str(&c.Name)) &&
			p.lit(`,"argumentsDelta":`) && p.str(&c.ArgumentsDelta)
	case ChunkBlockEnd:
		ok = !p.lit(`,"block":`) || p.block(&c.Block)
	}
	return ok && p.lit(`}}`) && p.i == len(p.b)
}

// typed sets c's type (after its members, which come after it in the
// text); it is always true.
func (p *cursor) typed(c *Chunk, typ string) bool {
	c.Type = typ
	return true
}

// block reads a block as Block.MarshalJSON writes one without meta:
// {"type","text"}, or {"type":"tool-call","id","name","arguments"}.
func (p *cursor) block(dst **Block) bool {
	var b Block
	start := p.i + len(`{"type":`)
	if !p.lit(`{"type":`) || !p.interned(&b.Type) {
		return false
	}
	// The layout follows the type as written; an escaped one is left to
	// the member decoder (with check set, the type is not decoded).
	typ := p.b[start:p.i]
	if bytes.IndexByte(typ, '\\') >= 0 {
		return false
	}
	if string(typ) == `"`+BlockToolCall+`"` {
		if !p.lit(`,"id":`) || !p.str(&b.ID) || !p.lit(`,"name":`) || !p.str(&b.Name) || !p.lit(`,"arguments":`) || !p.str(&b.Arguments) {
			return false
		}
	} else if !p.lit(`,"text":`) || !p.str(&b.Text) {
		return false
	}
	if !p.lit(`}`) {
		return false
	}
	keep(p, dst, &b)
	return true
}

// keep sets *dst to a copy of v, read into a local, unless p only
// checks: a check allocates nothing.
func keep[T any](p *cursor, dst **T, v *T) {
	if !p.check {
		c := *v
		*dst = &c
	}
}

// usageOf reads a Usage as encoding/json writes it into a new Usage.
func (p *cursor) usageOf(dst **Usage) bool {
	var u Usage
	if !p.usage(&u) {
		return false
	}
	keep(p, dst, &u)
	return true
}

// reason reads a FinishReason as encoding/json writes it.
func (p *cursor) reason(dst **FinishReason) bool {
	var r FinishReason
	var f Failure
	if !p.lit(`{"kind":`) || !p.text(&r.Kind, finishKinds) {
		return false
	}
	if p.lit(`,"failure":`) {
		if !p.lit(`{"message":`) || !p.str(&f.Message) ||
			(p.lit(`,"code":`) && !p.str(&f.Code)) ||
			(p.lit(`,"status":`) && !p.num(&f.Status)) || !p.lit(`}`) {
			return false
		}
		keep(p, &r.Failure, &f)
	}
	if !p.lit(`}`) {
		return false
	}
	keep(p, dst, &r)
	return true
}

// finishKinds holds one copy of each finish kind, so decoding one
// allocates nothing.
var finishKinds = map[string]string{
	FinishStop: FinishStop, FinishToolCalls: FinishToolCalls, FinishMaxTokens: FinishMaxTokens,
	FinishAborted: FinishAborted, FinishError: FinishError,
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

// num consumes an integer written as JSON writes it into n: an optional
// minus, no leading zero, at most 18 digits (so it cannot overflow).
func (p *cursor) num(n *int) bool {
	neg := p.i < len(p.b) && p.b[p.i] == '-'
	if neg {
		p.i++
	}
	start, v := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		v = v*10 + int(p.b[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || digits > 18 || (digits > 1 && p.b[start] == '0') {
		return false
	}
	if neg {
		v = -v
	}
	*n = v
	return true
}

// str consumes a valid JSON string and decodes it into s.
func (p *cursor) str(s *string) bool { return p.text(s, nil) }

// interned is str for a string that is usually a known chunk or block
// type, which it then gives without allocating.
func (p *cursor) interned(s *string) bool { return p.text(s, knownChunkTypes) }

// text consumes a valid JSON string and, unless p only checks, decodes it
// into s, interning the strings of known when known is not nil.
func (p *cursor) text(s *string, known map[string]string) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	end, _, err := jsonscan.SkipString(p.b, p.i)
	if err != nil {
		return false
	}
	if !p.check {
		var v string
		if known != nil {
			v, err = internString(known, p.b[p.i:end])
		} else {
			v, err = jsonscan.String(p.b[p.i:end])
		}
		if err != nil {
			return false
		}
		*s = v
	}
	p.i = end
	return true
}

// MayFinish reports whether the data of an assistant/chunk event could be
// a finish chunk: its type, "finish", is in it as is or spelled with a \u
// escape (no other escape stands for a letter). A reader that wants only
// the finish skips decoding the rest, most of a stream's chunks.
func MayFinish(data []byte) bool {
	return bytes.Contains(data, []byte(ChunkFinish)) || bytes.Contains(data, []byte(`\u`))
}
