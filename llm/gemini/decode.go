package gemini

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// block is a content block of the answer being decoded.
type block struct {
	index    int
	typ      string
	text     strings.Builder
	id, name string
	args     string
	sig      string // its thought signature
	ended    bool
}

// decoder turns the events of a streamGenerateContent answer into chunks.
// It is used by one goroutine.
type decoder struct {
	scrub     live.Scrubber
	blocks    []*block
	ids       map[string]bool // tool-call ids given out in this answer
	idPrefix  string          // of the ids it makes up for calls without one
	calls     int
	finish    string
	sawFinish bool
	usage     *session.Usage
	out       []session.Chunk
	events    int
}

func newDecoder(sc live.Scrubber) *decoder {
	return &decoder{scrub: sc, ids: map[string]bool{}, idPrefix: "call_"}
}

// Event decodes one event's data: a GenerateContentResponse, or an error
// object.
func (d *decoder) Event(_ string, data []byte) ([]session.Chunk, *session.Chunk) {
	d.out = d.out[:0]
	d.events++
	var r Response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, d.fail(live.CodeBadStream, fmt.Sprintf("gemini: stream event %d is not a GenerateContentResponse (%v); it starts %q", d.events, err, live.Snippet(data)))
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		fin := live.StreamErrorFinish(data, d.scrub)
		return nil, &fin
	}
	if r.UsageMetadata != nil {
		d.usage = r.UsageMetadata.session() // a running total: the last one counts
	}
	if len(r.Candidates) == 0 {
		if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
			return nil, d.fail(live.CodeContentFilter, "gemini: the provider blocked the prompt (promptFeedback.blockReason "+r.PromptFeedback.BlockReason+")")
		}
		return d.out, nil
	}
	c := &r.Candidates[0] // one candidate is asked for
	if c.Content != nil {
		for i := range c.Content.Parts {
			if fin := d.part(&c.Content.Parts[i]); fin != nil {
				return nil, fin
			}
		}
	}
	if c.FinishReason != "" {
		d.finish, d.sawFinish = c.FinishReason, true
	}
	return d.out, nil
}

func (d *decoder) fail(code, msg string) *session.Chunk {
	fin := session.ErrorFinish(code, d.scrub.Clip(msg))
	return &fin
}

// part applies one part of the answer. Text and thought parts in a row
// make one block, up to the part that carries a thought signature, which
// ends it; a function call is a block of its own, whole. A block ends when
// the next one starts, so its block-end (with the signature as meta)
// comes before the next block's chunks.
func (d *decoder) part(p *Part) *session.Chunk {
	if kind := p.unsupported(); kind != "" {
		return d.fail(live.CodeBadStream, fmt.Sprintf("gemini: the answer holds a %s part, which agentsnap cannot record; turn off what makes the model send it", kind))
	}
	switch {
	case p.FunctionCall != nil:
		return d.functionCall(p)
	case p.Text != nil:
		typ, delta := session.BlockText, session.ChunkTextDelta
		if p.Thought {
			typ, delta = session.BlockReasoning, session.ChunkReasoningDelta
		}
		b := d.open()
		if b == nil || b.typ != typ {
			if *p.Text == "" && p.ThoughtSignature == "" {
				return nil // nothing to record
			}
			b = d.start(typ)
		}
		if *p.Text != "" {
			b.text.WriteString(*p.Text)
			d.out = append(d.out, session.Chunk{Type: delta, Index: b.index, Text: *p.Text})
		}
		if p.ThoughtSignature != "" {
			b.sig = p.ThoughtSignature
			d.end(b)
		}
	case p.ThoughtSignature != "":
		// A signature alone belongs to what came before it.
		b := d.open()
		if b == nil {
			b = d.start(session.BlockText)
		}
		b.sig = p.ThoughtSignature
		d.end(b)
	}
	return nil
}

// open returns the block that may take more of the answer: the last one,
// unless it has ended.
func (d *decoder) open() *block {
	if n := len(d.blocks); n > 0 && !d.blocks[n-1].ended {
		return d.blocks[n-1]
	}
	return nil
}

// start ends the open block and starts one of typ.
func (d *decoder) start(typ string) *block {
	if b := d.open(); b != nil {
		d.end(b)
	}
	b := &block{index: len(d.blocks), typ: typ}
	d.blocks = append(d.blocks, b)
	d.out = append(d.out, session.Chunk{Type: session.ChunkBlockStart, Index: b.index, BlockType: typ})
	return b
}

// end writes b's block-end.
func (d *decoder) end(b *block) {
	b.ended = true
	blk := &session.Block{Type: b.typ, Meta: Meta(b.sig)}
	if b.typ == session.BlockToolCall {
		blk.ID, blk.Name, blk.Arguments = b.id, b.name, b.args
	} else {
		blk.Text = b.text.String()
	}
	d.out = append(d.out, session.Chunk{Type: session.ChunkBlockEnd, Index: b.index, Block: blk})
}

// functionCall records a call, which the API sends whole. A call without
// an id gets idPrefix+N (N its block index), and one whose id another call of
// the answer has gets ID_N: the runtime pairs results and children with
// calls by id.
func (d *decoder) functionCall(p *Part) *session.Chunk {
	fc := p.FunctionCall
	if fc.Name == "" {
		return d.fail(live.CodeBadStream, "gemini: the answer holds a function call without a name")
	}
	args, ok := argsText(fc.Args)
	if !ok {
		return d.fail(live.CodeBadStream, fmt.Sprintf("gemini: the args of function call %q are not a JSON object: %s", fc.Name, live.Snippet(fc.Args)))
	}
	b := d.start(session.BlockToolCall)
	b.name, b.args, b.sig = fc.Name, args, p.ThoughtSignature
	if b.sig != "" {
		defer d.end(b) // a signature closes the call to a later one
	}
	b.id = fc.ID
	if b.id == "" {
		b.id = d.idPrefix + strconv.Itoa(b.index)
	}
	if d.ids[b.id] {
		base := fmt.Sprintf("%s_%d", b.id, b.index)
		b.id = base
		for n := 2; d.ids[b.id]; n++ {
			b.id = fmt.Sprintf("%s_%d", base, n)
		}
	}
	d.ids[b.id] = true
	d.calls++
	d.out = append(d.out, session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ID: b.id, Name: b.name, ArgumentsDelta: args})
	return nil
}

// Complete reports whether the API has said the answer is over (a
// finishReason).
func (d *decoder) Complete() bool { return d.sawFinish }

// End returns the closing chunks: the open block's end, the usage, the
// finish.
func (d *decoder) End() []session.Chunk {
	d.out = d.out[:0]
	if b := d.open(); b != nil {
		d.end(b)
	}
	if d.usage != nil {
		d.out = append(d.out, session.Chunk{Type: session.ChunkUsage, Usage: d.usage})
	}
	return append(d.out, d.finishChunk())
}

// finishChunk maps the finishReason. STOP — which the API also says after
// function calls — and any reason this package does not know follow the
// content: tool-calls when the answer calls tools, stop otherwise.
func (d *decoder) finishChunk() session.Chunk {
	switch d.finish {
	case "MAX_TOKENS":
		return session.Finish(session.FinishMaxTokens)
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return session.ErrorFinish(live.CodeContentFilter, "gemini: the provider stopped the answer (finishReason "+d.finish+")")
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "LANGUAGE", "OTHER":
		return session.ErrorFinish(live.CodeProvider, "gemini: the model could not answer (finishReason "+d.finish+")")
	}
	if d.calls > 0 {
		return session.Finish(session.FinishToolCalls)
	}
	return session.Finish(session.FinishStop)
}
