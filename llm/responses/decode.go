package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// block is a content block that has started: the block of one output item.
type block struct {
	index    int
	typ      string
	buf      strings.Builder
	itemID   string
	id, name string // a tool call's
	summary  int    // the summary_index of the last summary delta, -1 before one
	ended    bool
}

// decoder turns the events of one response stream into chunks; see the
// package doc. It is used by one goroutine.
type decoder struct {
	scrub    live.Scrubber
	blocks   []*block // in index order, which is start order
	byItem   map[string]*block
	ids      map[string]bool // tool-call ids given out in this response
	calls    int
	usage    *session.Usage
	final    *session.Chunk // the finish a terminal event said
	complete bool
	out      []session.Chunk
	events   int
}

func newDecoder(sc live.Scrubber) *decoder {
	return &decoder{scrub: sc, byItem: map[string]*block{}, ids: map[string]bool{}}
}

// Event decodes one event's data (name is its event: line).
func (d *decoder) Event(name string, data []byte) ([]session.Chunk, *session.Chunk) {
	d.out = d.out[:0]
	d.events++
	typ, failed, err := eventHead(data)
	if err != nil {
		return nil, d.badStream(fmt.Sprintf("is not an event object (%v)", err), data)
	}
	if typ == "" {
		typ = name
	}
	if typ == EventError || failed {
		fin := live.StreamErrorFinish(data, d.scrub)
		return nil, &fin
	}
	if typ == "" {
		return nil, d.badStream("has no type", data)
	}
	if d.complete || !handled(typ) {
		return nil, nil // after the terminal event, or an event with nothing for the log
	}
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, d.unreadable(typ, data, err)
	}
	if fin := d.refuseItems(typ, &ev); fin != nil {
		return nil, fin
	}
	switch typ {
	case EventFailed:
		return nil, d.failed(ev.Response)
	case EventCompleted, EventIncomplete:
		d.terminal(typ, ev.Response)
	case EventItemAdded:
		if ev.Item != nil && ev.Item.Type == ItemFunctionCall {
			d.startCall(&ev.Item.Item)
		}
	case EventItemDone:
		if ev.Item != nil {
			d.itemDone(&ev.Item.Item)
		}
	case EventTextDelta, EventRefusalDelta:
		d.delta(&ev, session.BlockText)
	case EventSummaryDelta, EventReasoningDelta:
		d.delta(&ev, session.BlockReasoning)
	case EventArgsDelta:
		if b := d.byItem[ev.ItemID]; b != nil && !b.ended && b.typ == session.BlockToolCall && ev.Delta != nil && *ev.Delta != "" {
			b.buf.WriteString(*ev.Delta)
			d.out = append(d.out, session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ArgumentsDelta: *ev.Delta})
		}
	}
	return d.out, nil
}

// handled reports whether events of type typ say anything for the log.
func handled(typ string) bool {
	switch typ {
	case EventFailed, EventCompleted, EventIncomplete, EventItemAdded, EventItemDone,
		EventTextDelta, EventRefusalDelta, EventSummaryDelta, EventReasoningDelta, EventArgsDelta:
		return true
	}
	return false
}

func (d *decoder) badStream(what string, data []byte) *session.Chunk {
	fin := session.ErrorFinish(live.CodeBadStream, d.scrub.Clip(fmt.Sprintf(
		"%s: stream event %d %s; it starts %q", d.scrub.Prefix(), d.events, what, live.Snippet(data))))
	return &fin
}

func (d *decoder) start(typ, itemID string) *block {
	b := &block{index: len(d.blocks), typ: typ, itemID: itemID, summary: -1}
	d.blocks = append(d.blocks, b)
	if itemID != "" {
		d.byItem[itemID] = b
	}
	d.out = append(d.out, session.Chunk{Type: session.ChunkBlockStart, Index: b.index, BlockType: typ})
	return b
}

// open returns the open block of item id and type typ, starting it first
// if there is none; nil when the item's block has ended or is another's.
// An event without an item id goes to the last open block of typ that has
// none.
func (d *decoder) open(itemID, typ string) *block {
	if itemID == "" {
		for i := len(d.blocks) - 1; i >= 0; i-- {
			if b := d.blocks[i]; b.itemID == "" && b.typ == typ && !b.ended {
				return b
			}
		}
		return d.start(typ, "")
	}
	b := d.byItem[itemID]
	switch {
	case b == nil:
		return d.start(typ, itemID)
	case b.ended || b.typ != typ:
		return nil
	}
	return b
}

// startCall opens the tool-call block of a function_call item: its call id
// (made unique in the response) and name come first.
func (d *decoder) startCall(it *Item) *block {
	if b := d.byItem[it.ID]; b != nil && it.ID != "" {
		return b
	}
	b := d.start(session.BlockToolCall, it.ID)
	d.calls++
	id := it.CallID
	if id == "" {
		id = fmt.Sprintf("call_%d", b.index)
	}
	b.id, b.name = d.claimID(id, b.index), it.Name
	c := session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ID: b.id, Name: b.name}
	if it.Arguments != nil {
		c.ArgumentsDelta = *it.Arguments
		b.buf.WriteString(*it.Arguments)
	}
	d.out = append(d.out, c)
	return b
}

// claimID returns id, or when another call of this response has it, the
// first of id_INDEX, id_INDEX_2, … that none has (as llm/openai does).
func (d *decoder) claimID(id string, index int) string {
	got := id
	if d.ids[got] {
		base := fmt.Sprintf("%s_%d", id, index)
		got = base
		for n := 2; d.ids[got]; n++ {
			got = fmt.Sprintf("%s_%d", base, n)
		}
	}
	d.ids[got] = true
	return got
}

// delta applies a text, refusal, summary or reasoning text delta. A new
// summary part of the same item starts after a blank line.
func (d *decoder) delta(ev *event, typ string) {
	if ev.Delta == nil || *ev.Delta == "" {
		return
	}
	b := d.open(ev.ItemID, typ)
	if b == nil {
		return
	}
	text := *ev.Delta
	if ev.Type == EventSummaryDelta {
		idx := 0
		if ev.SummaryIndex != nil {
			idx = *ev.SummaryIndex
		}
		if b.summary >= 0 && idx != b.summary && b.buf.Len() > 0 {
			text = "\n\n" + text
		}
		b.summary = idx
	}
	b.buf.WriteString(text)
	kind := session.ChunkTextDelta
	if typ == session.BlockReasoning {
		kind = session.ChunkReasoningDelta
	}
	d.out = append(d.out, session.Chunk{Type: kind, Index: b.index, Text: text})
}
