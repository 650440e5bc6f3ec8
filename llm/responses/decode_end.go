package responses

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// find returns the block of item id of type typ that is open, and whether
// the item has a block at all (open, ended or of another type). An item
// without an id is the last open block of typ that has none.
func (d *decoder) find(itemID, typ string) (*block, bool) {
	if itemID == "" {
		for i := len(d.blocks) - 1; i >= 0; i-- {
			if b := d.blocks[i]; b.itemID == "" && b.typ == typ && !b.ended {
				return b, true
			}
		}
		return nil, false
	}
	b := d.byItem[itemID]
	if b == nil {
		return nil, false
	}
	if b.ended || b.typ != typ {
		return nil, true
	}
	return b, true
}

// itemDone ends the block of a finished output item with the whole item:
// what its deltas did not say yet comes as one more delta, so the deltas
// and the block-end agree. An item no event has shown yet (a server that
// sends items whole) gets its block here.
func (d *decoder) itemDone(it *Item) {
	switch it.Type {
	case ItemFunctionCall:
		b, known := d.find(it.ID, session.BlockToolCall)
		switch {
		case b == nil && known:
			return
		case b == nil:
			b = d.startCall(it)
		}
		if b.name == "" && it.Name != "" {
			b.name = it.Name
			d.out = append(d.out, session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, Name: it.Name})
		}
		if it.Arguments != nil {
			d.rest(b, *it.Arguments)
		}
		d.out = append(d.out, d.end(b, Meta{ID: it.ID}))
	case ItemMessage:
		text, _ := contentText(it.Content) // content that is no text adds none
		d.whole(it, session.BlockText, text, Meta{ID: it.ID, Phase: it.Phase})
	case ItemReasoning:
		m := Meta{ID: it.ID}
		if it.EncryptedContent != nil {
			m.EncryptedContent = *it.EncryptedContent
		}
		d.whole(it, session.BlockReasoning, reasoningText(it), m)
	}
}

// whole ends the text or reasoning block of a finished item. An item with
// nothing to keep (no text, no encrypted content) gets no block.
func (d *decoder) whole(it *Item, typ, text string, m Meta) {
	b, known := d.find(it.ID, typ)
	switch {
	case b == nil && known:
		return
	case b == nil && text == "" && m.EncryptedContent == "":
		return
	case b == nil:
		b = d.start(typ, it.ID)
	}
	d.rest(b, text)
	d.out = append(d.out, d.end(b, m))
}

// rest sends what final says beyond the deltas so far, when it goes on
// from them; a final that does not is left to the deltas.
func (d *decoder) rest(b *block, final string) {
	cur := b.buf.String()
	if len(final) <= len(cur) || !strings.HasPrefix(final, cur) {
		return
	}
	more := final[len(cur):]
	b.buf.WriteString(more)
	c := session.Chunk{Index: b.index}
	switch b.typ {
	case session.BlockToolCall:
		c.Type, c.ArgumentsDelta = session.ChunkToolCallDelta, more
	case session.BlockReasoning:
		c.Type, c.Text = session.ChunkReasoningDelta, more
	default:
		c.Type, c.Text = session.ChunkTextDelta, more
	}
	d.out = append(d.out, c)
}

// end returns the block-end of b, with m as its meta.
func (d *decoder) end(b *block, m Meta) session.Chunk {
	blk := &session.Block{Type: b.typ, Meta: m.Raw()}
	if b.typ == session.BlockToolCall {
		blk.ID, blk.Name, blk.Arguments = b.id, b.name, b.buf.String()
	} else {
		blk.Text = b.buf.String()
	}
	b.ended = true
	return session.Chunk{Type: session.ChunkBlockEnd, Index: b.index, Block: blk}
}

// terminal reads response.completed or response.incomplete: the usage,
// the items the stream did not show (by id; a stream that showed none at
// all, every item), and how the response ended.
func (d *decoder) terminal(typ string, r *liveResponse) {
	d.complete = true
	if r == nil {
		return
	}
	if r.Usage != nil {
		d.usage = r.Usage.session()
	}
	none := len(d.blocks) == 0
	for i := range r.Output {
		if it := &r.Output[i].Item; it.ID != "" || none {
			d.itemDone(it)
		}
	}
	if typ != EventIncomplete {
		return
	}
	reason := ""
	if r.IncompleteDetails != nil {
		reason = r.IncompleteDetails.Reason
	}
	fin := session.Finish(session.FinishMaxTokens)
	if reason == "content_filter" {
		fin = session.ErrorFinish(live.CodeContentFilter, d.scrub.Prefix()+": the provider stopped the response (incomplete_details.reason content_filter)")
	}
	d.final = &fin
}

// failed is the finish of response.failed: its error object.
func (d *decoder) failed(r *liveResponse) *session.Chunk {
	e := Error{Message: "the response failed without saying why"}
	if r != nil && r.Error != nil {
		e = *r.Error
	}
	data, _ := json.Marshal(ErrorBody{Error: e})
	fin := live.StreamErrorFinish(data, d.scrub)
	return &fin
}

// Complete reports whether a terminal event came.
func (d *decoder) Complete() bool { return d.complete }

// End returns the closing chunks: a block-end per open block in index
// order, the usage if any, and the finish.
func (d *decoder) End() []session.Chunk {
	out := make([]session.Chunk, 0, len(d.blocks)+2)
	for _, b := range d.blocks {
		if !b.ended {
			out = append(out, d.end(b, Meta{ID: b.itemID}))
		}
	}
	if d.usage != nil {
		out = append(out, session.Chunk{Type: session.ChunkUsage, Usage: d.usage})
	}
	switch {
	case d.final != nil:
		return append(out, *d.final)
	case d.calls > 0:
		return append(out, session.Finish(session.FinishToolCalls))
	}
	return append(out, session.Finish(session.FinishStop))
}

// session is the usage in agentsnap's terms.
func (u *Usage) session() *session.Usage {
	out := &session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if u.InputTokensDetails != nil && u.InputTokensDetails.CachedTokens != nil {
		out.CacheReadTokens = ptr(*u.InputTokensDetails.CachedTokens)
	}
	if u.OutputTokensDetails != nil && u.OutputTokensDetails.ReasoningTokens != nil {
		out.ReasoningTokens = ptr(*u.OutputTokensDetails.ReasoningTokens)
	}
	return out
}
