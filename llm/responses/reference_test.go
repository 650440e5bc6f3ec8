package responses

// The writer of a streamed answer as it was before its events were
// written by hand: encoding/json's bytes, kept as the reference the hand
// writer is held to (FuzzWriteStream, frames_test.go). Do not improve it.
// It shares with the writer only what did not change in what it does:
// outItem's data, assign, recorded, setText, first, ReadMeta,
// newResponse, usageOf and finishStatus. The ids it derives are held to
// the old derivation apart (refItemID).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// refAddedItem is the item as output_item.added shows it: just begun.
func refAddedItem(it *outItem) *Item {
	switch it.kind {
	case ItemFunctionCall:
		return &Item{Type: ItemFunctionCall, ID: it.id, Status: StatusInProgress, CallID: it.callID, Name: it.name, Arguments: ptr("")}
	case ItemReasoning:
		return &Item{Type: ItemReasoning, ID: it.id, Summary: []Part{}}
	}
	return &Item{Type: ItemMessage, ID: it.id, Status: StatusInProgress, Role: session.RoleAssistant, Content: json.RawMessage("[]")}
}

// refDoneItem is the complete item.
func refDoneItem(it *outItem) Item {
	text := it.text.String()
	switch it.kind {
	case ItemFunctionCall:
		return Item{Type: ItemFunctionCall, ID: it.id, Status: StatusCompleted, CallID: it.callID, Name: it.name, Arguments: ptr(text)}
	case ItemReasoning:
		r := Item{Type: ItemReasoning, ID: it.id, Summary: []Part{}}
		if text != "" {
			r.Summary = []Part{{Type: "summary_text", Text: text}}
		}
		if it.meta.EncryptedContent != "" {
			r.EncryptedContent = ptr(it.meta.EncryptedContent)
		}
		return r
	}
	content, _ := json.Marshal([]Part{refOutputText(text)})
	return Item{Type: ItemMessage, ID: it.id, Status: StatusCompleted, Role: session.RoleAssistant, Phase: it.meta.Phase, Content: content}
}

func refOutputText(text string) Part {
	return Part{Type: "output_text", Text: text, Annotations: json.RawMessage("[]")}
}

// refStreamer writes one answer's chunks as events.
type refStreamer struct {
	w      http.ResponseWriter
	a      Answer
	seq    int
	items  []*outItem // in output order
	blocks map[int]*outItem
	order  []int // block indices as they first appear
	usage  *session.Usage
	err    error
}

// refWriteStream writes a streamed answer: the events of chunks, which end
// with exactly one finish — response.completed (response.incomplete for
// max-tokens) carrying the whole response, an error event for a failed
// call, nothing more for an aborted one (as a cut connection ends).
func refWriteStream(w http.ResponseWriter, a Answer, chunks iter.Seq[session.Chunk]) (Result, error) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &refStreamer{w: w, a: a, blocks: map[int]*outItem{}}
	s.send(Event{Type: EventCreated, Response: newResponse(a, StatusInProgress)})
	s.send(Event{Type: EventInProgress, Response: newResponse(a, StatusInProgress)})
	for c := range chunks {
		if c.Type == session.ChunkFinish {
			return s.finish(c.Reason)
		}
		s.chunk(c)
		if s.err != nil {
			return Result{}, s.err
		}
	}
	return Result{}, s.err
}

func (s *refStreamer) send(ev Event) {
	if s.err != nil {
		return
	}
	ev.SequenceNumber = s.seq
	s.seq++
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if s.err = enc.Encode(ev); s.err != nil {
		return
	}
	if _, s.err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n", ev.Type, b.Bytes()); s.err != nil {
		return
	}
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
}

func (s *refStreamer) chunk(c session.Chunk) {
	switch c.Type {
	case session.ChunkBlockStart:
		if it := s.block(c.Index, c.BlockType); it != nil && it.kind == ItemMessage {
			s.add(it)
		}
	case session.ChunkTextDelta:
		if it := s.block(c.Index, session.BlockText); it != nil {
			s.add(it)
			it.text.WriteString(c.Text)
			s.send(Event{Type: EventTextDelta, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Delta: ptr(c.Text), Logprobs: json.RawMessage("[]")})
		}
	case session.ChunkReasoningDelta:
		if it := s.block(c.Index, session.BlockReasoning); it != nil {
			it.text.WriteString(c.Text)
			it.pieces = append(it.pieces, c.Text)
		}
	case session.ChunkToolCallDelta:
		if it := s.block(c.Index, session.BlockToolCall); it != nil {
			s.toolCallDelta(it, c)
		}
	case session.ChunkBlockEnd:
		if c.Block != nil {
			if it := s.block(c.Index, c.Block.Type); it != nil {
				s.end(it, c.Block)
			}
		}
	case session.ChunkUsage:
		s.usage = c.Usage
	}
}

// block returns the open item of block index i, of block type typ, or nil
// when it has ended or is of another type.
func (s *refStreamer) block(i int, typ string) *outItem {
	it, ok := s.blocks[i]
	if !ok {
		if it = newOutItem(typ); it == nil {
			return nil
		}
		s.blocks[i] = it
		s.order = append(s.order, i)
	}
	if it.done || kindOf(typ) != it.kind {
		return nil
	}
	return it
}

// toolCallDelta streams a function call's arguments once its call id is
// known; what came before goes out with output_item.added.
func (s *refStreamer) toolCallDelta(it *outItem, c session.Chunk) {
	if it.callID == "" {
		it.callID = c.ID
	}
	if it.name == "" {
		it.name = c.Name
	}
	it.text.WriteString(c.ArgumentsDelta)
	switch {
	case !it.added && it.callID != "":
		s.add(it)
	case it.added && c.ArgumentsDelta != "":
		s.send(Event{Type: EventArgsDelta, ItemID: it.id, OutputIndex: ptr(it.index), Delta: ptr(c.ArgumentsDelta)})
	}
}

// add makes it the next output item and says so.
func (s *refStreamer) add(it *outItem) {
	if it.added {
		return
	}
	it.assign(s.a.Key, len(s.items))
	s.items = append(s.items, it)
	s.send(Event{Type: EventItemAdded, OutputIndex: ptr(it.index), Item: refAddedItem(it)})
	switch {
	case it.kind == ItemMessage:
		s.send(Event{Type: EventPartAdded, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Part: ptr(refOutputText(""))})
	case it.kind == ItemFunctionCall && it.text.Len() > 0:
		s.send(Event{Type: EventArgsDelta, ItemID: it.id, OutputIndex: ptr(it.index), Delta: ptr(it.text.String())})
	}
}

// end completes an item at its block's end (blk), or at the finish (nil):
// a block-end's whole block wins over the deltas seen for it.
func (s *refStreamer) end(it *outItem, blk *session.Block) {
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
		s.send(Event{Type: EventPartDone, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Part: ptr(refOutputText(text))})
	case ItemReasoning:
		if blk != nil && blk.Text != it.text.String() {
			setText(it, blk.Text)
			it.pieces = []string{blk.Text}
		}
		s.reasoning(it)
	}
	it.done = true
	s.send(Event{Type: EventItemDone, OutputIndex: ptr(it.index), Item: ptr(refDoneItem(it))})
}

// reasoning writes a reasoning item, held until its block ended (its id is
// the recording's, known only then), with its text as one summary part.
func (s *refStreamer) reasoning(it *outItem) {
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

// finish ends the stream as the call finished (nil: stopped).
func (s *refStreamer) finish(r *session.FinishReason) (Result, error) {
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
		resp.Output = append(resp.Output, refDoneItem(it))
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

// refResponseID and refItemID are the ids as they were derived.
func refResponseID(key string) string { return "resp_" + refDigest(key) }

func refItemID(prefix, key string, n int) string {
	return prefix + "_" + refDigest(fmt.Sprintf("%s\x00%d", key, n))
}

func refDigest(s string) string {
	sum := sha256.Sum256([]byte("agentsnap " + API + "\x00" + s))
	return hex.EncodeToString(sum[:16])
}
