package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// outItem is an output item being answered: a block of the call's stream.
type outItem struct {
	kind         string // ItemMessage, ItemReasoning or ItemFunctionCall
	index        int    // output_index, once added
	id           string
	added, done  bool
	text         strings.Builder // the text, the reasoning or the arguments so far
	pieces       []string        // reasoning deltas, held until the block ends
	callID, name string
	meta         Meta            // the block's, from its block-end
	rawMeta      json.RawMessage // the same, as recorded
}

// newOutItem returns the item of a block or part of type typ, or nil for
// a type the API has no item for.
func newOutItem(typ string) *outItem {
	if k := kindOf(typ); k != "" {
		return &outItem{kind: k}
	}
	return nil
}

// kindOf is the item type of a block or part type, or "".
func kindOf(typ string) string {
	switch typ {
	case session.PartText:
		return ItemMessage
	case session.PartReasoning:
		return ItemReasoning
	case session.PartToolCall:
		return ItemFunctionCall
	}
	return ""
}

// assign makes it output item n of the response to key. A reasoning item
// keeps the id its recording gave it: its encrypted content is that
// item's. Other items get ids derived from the call.
func (it *outItem) assign(key string, n int) {
	it.index, it.added = n, true
	switch {
	case it.kind == ItemReasoning && it.meta.ID != "":
		it.id = it.meta.ID
	case it.kind == ItemReasoning:
		it.id = itemID("rs", key, n)
	case it.kind == ItemFunctionCall:
		it.id = itemID("fc", key, n)
	default:
		it.id = itemID("msg", key, n)
	}
}

// addedItem is the item as output_item.added shows it: just begun.
func (it *outItem) addedItem() *Item {
	switch it.kind {
	case ItemFunctionCall:
		return &Item{Type: ItemFunctionCall, ID: it.id, Status: StatusInProgress, CallID: it.callID, Name: it.name, Arguments: ptr("")}
	case ItemReasoning:
		return &Item{Type: ItemReasoning, ID: it.id, Summary: []Part{}}
	}
	return &Item{Type: ItemMessage, ID: it.id, Status: StatusInProgress, Role: session.RoleAssistant, Content: json.RawMessage("[]")}
}

// doneItem is the complete item.
func (it *outItem) doneItem() Item {
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
	content, _ := json.Marshal([]Part{outputText(text)})
	return Item{Type: ItemMessage, ID: it.id, Status: StatusCompleted, Role: session.RoleAssistant, Phase: it.meta.Phase, Content: content}
}

func outputText(text string) Part {
	return Part{Type: "output_text", Text: text, Annotations: json.RawMessage("[]")}
}

// recorded is the item as a part of the message its chunks make: what
// the log holds (a block-end's meta included).
func (it *outItem) recorded() session.Part {
	text := it.text.String()
	switch it.kind {
	case ItemFunctionCall:
		return session.Part{Type: session.PartToolCall, ID: it.callID, Name: it.name, Arguments: text, Meta: it.rawMeta}
	case ItemReasoning:
		return session.Part{Type: session.PartReasoning, Text: text, Meta: it.rawMeta}
	}
	return session.Part{Type: session.PartText, Text: text, Meta: it.rawMeta}
}

// streamer writes one answer's chunks as events.
type streamer struct {
	w      http.ResponseWriter
	a      Answer
	seq    int
	items  []*outItem // in output order
	blocks map[int]*outItem
	order  []int // block indices as they first appear
	usage  *session.Usage
	err    error
}

// WriteStream writes a streamed answer: the events of chunks, which end
// with exactly one finish — response.completed (response.incomplete for
// max-tokens) carrying the whole response, an error event for a failed
// call, nothing more for an aborted one (as a cut connection ends).
func WriteStream(w http.ResponseWriter, a Answer, chunks iter.Seq[session.Chunk]) (Result, error) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &streamer{w: w, a: a, blocks: map[int]*outItem{}}
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

func (s *streamer) send(ev Event) {
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

func (s *streamer) chunk(c session.Chunk) {
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
func (s *streamer) block(i int, typ string) *outItem {
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
func (s *streamer) toolCallDelta(it *outItem, c session.Chunk) {
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
func (s *streamer) add(it *outItem) {
	if it.added {
		return
	}
	it.assign(s.a.Key, len(s.items))
	s.items = append(s.items, it)
	s.send(Event{Type: EventItemAdded, OutputIndex: ptr(it.index), Item: it.addedItem()})
	switch {
	case it.kind == ItemMessage:
		s.send(Event{Type: EventPartAdded, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Part: ptr(outputText(""))})
	case it.kind == ItemFunctionCall && it.text.Len() > 0:
		s.send(Event{Type: EventArgsDelta, ItemID: it.id, OutputIndex: ptr(it.index), Delta: ptr(it.text.String())})
	}
}
