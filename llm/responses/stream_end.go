package responses

import (
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// end completes an item at its block's end (blk), or at the finish (nil):
// a block-end's whole block wins over the deltas seen for it.
func (s *streamer) end(it *outItem, blk *session.Block) {
	if it.done {
		return
	}
	if blk != nil {
		it.meta, it.rawMeta = ReadMeta(blk.Meta), blk.Meta
	}
	switch it.kind {
	case ItemFunctionCall:
		if blk != nil {
			it.callID, it.name = first(it.callID, blk.ID), first(it.name, blk.Name)
			setText(it, blk.Arguments)
		}
		s.add(it)
		s.argsDone(it)
	case ItemMessage:
		s.add(it)
		if blk != nil {
			if it.text.Len() == 0 && blk.Text != "" { // a block sent whole: its text as one delta
				s.textDelta(it, blk.Text)
			}
			setText(it, blk.Text)
		}
		s.textDone(it)
		s.part(EventPartDone, it, it.text.String())
	case ItemReasoning:
		if blk != nil && blk.Text != it.text.String() {
			setText(it, blk.Text)
			it.pieces = []string{blk.Text}
		}
		s.reasoning(it)
	}
	it.done = true
	s.itemDone(it)
}

// reasoning writes a reasoning item, held until its block ended (its id is
// the recording's, known only then), with its text as one summary part.
func (s *streamer) reasoning(it *outItem) {
	s.add(it)
	text := it.text.String()
	if text == "" {
		return // encrypted content only: no summary
	}
	s.summary(EventSummaryPartAdded, it, `,"part":{"type":"summary_text","text":`, "", "}")
	for _, p := range it.pieces {
		if p != "" {
			s.summary(EventSummaryDelta, it, `,"delta":`, p, "")
		}
	}
	s.summary(EventSummaryDone, it, `,"text":`, text, "")
	s.summary(EventSummaryPartDone, it, `,"part":{"type":"summary_text","text":`, text, "}")
}

// setText makes text the item's text; one it already holds is not copied.
func setText(it *outItem, text string) {
	if it.text.String() == text {
		return
	}
	it.text.Reset()
	it.text.WriteString(text)
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// finish ends the stream as the call finished (nil: stopped).
func (s *streamer) finish(r *session.FinishReason) (Result, error) {
	if r == nil {
		r = &session.FinishReason{Kind: session.FinishStop}
	}
	switch r.Kind {
	case session.FinishAborted:
		return Result{}, s.err
	case session.FinishError:
		_, code, msg := live.ServedFailure(r)
		s.errorEvent(code, msg)
		return Result{}, s.err
	}
	for _, it := range s.blocks { // what the chunks left open, in the order it began
		s.end(it, nil)
	}
	status, incomplete := finishStatus(r.Kind)
	typ := EventCompleted
	if status == StatusIncomplete {
		typ = EventIncomplete
	}
	s.response(typ, &response{status: status, items: s.items, incomplete: incomplete, usage: s.usage, final: true})
	res := Result{ID: s.id, Output: session.Message{Role: session.RoleAssistant, Content: make([]session.Part, 0, len(s.blocks))}, Kept: s.err == nil}
	if len(s.blocks) > 0 {
		res.ItemIDs = make([]string, 0, len(s.blocks))
	}
	for _, it := range s.blocks { // the blocks in the order they began: the log's message
		res.Output.Content = append(res.Output.Content, it.recorded())
		res.ItemIDs = append(res.ItemIDs, it.id)
	}
	return res, s.err
}
