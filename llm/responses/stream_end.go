package responses

import (
	"encoding/json"

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
		s.send(Event{Type: EventArgsDone, ItemID: it.id, OutputIndex: ptr(it.index), Arguments: ptr(it.text.String())})
	case ItemMessage:
		s.add(it)
		if blk != nil {
			if it.text.Len() == 0 && blk.Text != "" { // a block sent whole: its text as one delta
				s.send(Event{Type: EventTextDelta, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Delta: ptr(blk.Text), Logprobs: json.RawMessage("[]")})
			}
			setText(it, blk.Text)
		}
		text := it.text.String()
		s.send(Event{Type: EventTextDone, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Text: ptr(text), Logprobs: json.RawMessage("[]")})
		s.send(Event{Type: EventPartDone, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Part: ptr(outputText(text))})
	case ItemReasoning:
		if blk != nil && blk.Text != it.text.String() {
			setText(it, blk.Text)
			it.pieces = []string{blk.Text}
		}
		s.reasoning(it)
	}
	it.done = true
	s.send(Event{Type: EventItemDone, OutputIndex: ptr(it.index), Item: ptr(it.doneItem())})
}

// reasoning writes a reasoning item, held until its block ended (its id is
// the recording's, known only then), with its text as one summary part.
func (s *streamer) reasoning(it *outItem) {
	s.add(it)
	text := it.text.String()
	if text == "" {
		return // encrypted content only: no summary
	}
	at := func(t string) Event {
		return Event{Type: t, ItemID: it.id, OutputIndex: ptr(it.index), SummaryIndex: ptr(0)}
	}
	ev := at(EventSummaryPartAdded)
	ev.Part = &Part{Type: "summary_text"}
	s.send(ev)
	for _, p := range it.pieces {
		if p == "" {
			continue
		}
		ev := at(EventSummaryDelta)
		ev.Delta = ptr(p)
		s.send(ev)
	}
	ev = at(EventSummaryDone)
	ev.Text = ptr(text)
	s.send(ev)
	ev = at(EventSummaryPartDone)
	ev.Part = &Part{Type: "summary_text", Text: text}
	s.send(ev)
}

func setText(it *outItem, text string) {
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
		null := json.RawMessage("null")
		s.send(Event{Type: EventError, Code: ptr(code), Message: ptr(msg), Param: null,
			Error: &Error{Type: "agentsnap_replay_error", Code: code, Message: msg, Param: null}})
		return Result{}, s.err
	}
	for _, i := range s.order { // what the chunks left open, in the order it began
		s.end(s.blocks[i], nil)
	}
	resp := newResponse(s.a, StatusCompleted)
	resp.Status, resp.IncompleteDetails = finishStatus(r.Kind)
	resp.Usage = usageOf(s.usage)
	for _, it := range s.items {
		resp.Output = append(resp.Output, it.doneItem())
	}
	typ := EventCompleted
	if resp.Status == StatusIncomplete {
		typ = EventIncomplete
	}
	s.send(Event{Type: typ, Response: resp})
	res := Result{ID: resp.ID, Output: session.Message{Role: session.RoleAssistant, Content: []session.Part{}}, Kept: s.err == nil}
	for _, i := range s.order { // the blocks in the order they began: the log's message
		it := s.blocks[i]
		res.Output.Content = append(res.Output.Content, it.recorded())
		res.ItemIDs = append(res.ItemIDs, it.id)
	}
	return res, s.err
}
