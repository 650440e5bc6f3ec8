package responses

import (
	"encoding/json"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// outItem is an output item being answered: a block of the call's stream.
type outItem struct {
	kind         string // ItemMessage, ItemReasoning or ItemFunctionCall
	block        int    // the block index of its chunks
	index        int    // output_index, once added
	id           string
	added, done  bool
	text         strings.Builder // the text, the reasoning or the arguments so far
	pieces       []string        // reasoning deltas, held until the block ends
	callID, name string
	meta         Meta            // the block's, from its block-end
	rawMeta      json.RawMessage // the same, as recorded
	quotedID     []byte          // id as a JSON string, once an event needs it
}

// newOutItem returns the item of a block or part of type typ, or nil for
// a type the API has no item for.
// write adds s to the item's text. The first write makes room for a
// usual answer at once: a stream adds a few bytes a delta, and the
// builder would otherwise grow (and copy) every few deltas.
func (it *outItem) write(s string) {
	if it.text.Cap() == 0 {
		it.text.Grow(max(256, len(s)))
	}
	it.text.WriteString(s)
}

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

// streamer writes one answer's chunks as events. Each call has its own:
// a driver that calls yield after its stream returned reaches one that
// has ended, and writes nothing.
type streamer struct {
	w        http.ResponseWriter
	flush    http.Flusher // w's, if it has one
	a        Answer
	id       string // the response's
	seq      int
	items    []*outItem // in output order
	blocks   []*outItem // in the order their blocks first appear
	usage    *session.Usage
	fb       *frameBuf // from frameBufs until the stream returns
	buf      []byte    // the event being written
	toolsErr error     // encoding the tools member
	ended    bool      // by the finish, an error writing, or WriteStream's return
	res      Result    // the finish's
	err      error
}

// WriteStream writes a streamed answer: the events of chunks, which end
// with exactly one finish — response.completed (response.incomplete for
// max-tokens) carrying the whole response, an error event for a failed
// call, nothing more for an aborted one (as a cut connection ends).
func WriteStream(w http.ResponseWriter, a Answer, chunks iter.Seq[session.Chunk]) (Result, error) {
	live.StreamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	s := &streamer{w: w, a: a, id: ResponseID(a.Key), fb: frameBufs.Get().(*frameBuf)}
	s.flush, _ = w.(http.Flusher)
	s.buf = s.fb.buf[:0]
	// Once it returns (or chunks panics), a yield kept writes nothing.
	defer s.stop()
	s.open()
	// Not a range: a range over a dynamic iter.Seq allocates its state.
	chunks(s.next)
	s.release() // not deferred: the memory of a stream whose chunks panicked is not reused
	return s.res, s.err
}

// stop ends the stream: a later chunk is not read.
func (s *streamer) stop() { s.ended = true }

// next reads one chunk of the stream; false once it ended.
func (s *streamer) next(c session.Chunk) bool {
	switch {
	case s.ended:
	case c.Type == session.ChunkFinish:
		s.res, s.err = s.finish(c.Reason)
		s.ended = true
	default:
		s.chunk(&c)
		s.ended = s.err != nil
	}
	return !s.ended
}

func (s *streamer) chunk(c *session.Chunk) {
	switch c.Type {
	case session.ChunkBlockStart:
		if it := s.block(c.Index, c.BlockType); it != nil && it.kind == ItemMessage {
			s.add(it)
		}
	case session.ChunkTextDelta:
		if it := s.block(c.Index, session.BlockText); it != nil {
			s.add(it)
			it.write(c.Text)
			s.textDelta(it, c.Text)
		}
	case session.ChunkReasoningDelta:
		if it := s.block(c.Index, session.BlockReasoning); it != nil {
			it.write(c.Text)
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
// when it has ended or is of another type. An answer has a few blocks,
// whose chunks mostly come together: a search from the last beats a map.
func (s *streamer) block(i int, typ string) *outItem {
	var it *outItem
	for k := len(s.blocks) - 1; k >= 0; k-- {
		if s.blocks[k].block == i {
			it = s.blocks[k]
			break
		}
	}
	if it == nil {
		if it = newOutItem(typ); it == nil {
			return nil
		}
		it.block = i
		s.blocks = append(s.blocks, it)
	}
	if it.done || kindOf(typ) != it.kind {
		return nil
	}
	return it
}

// toolCallDelta streams a function call's arguments once its call id is
// known; what came before goes out with output_item.added.
func (s *streamer) toolCallDelta(it *outItem, c *session.Chunk) {
	if it.callID == "" {
		it.callID = c.ID
	}
	if it.name == "" {
		it.name = c.Name
	}
	it.write(c.ArgumentsDelta)
	switch {
	case !it.added && it.callID != "":
		s.add(it)
	case it.added && c.ArgumentsDelta != "":
		s.argsDelta(it, c.ArgumentsDelta)
	}
}

// add makes it the next output item and says so.
func (s *streamer) add(it *outItem) {
	if it.added {
		return
	}
	it.assign(s.a.Key, len(s.items))
	s.items = append(s.items, it)
	s.itemAdded(it)
	switch {
	case it.kind == ItemMessage:
		s.part(EventPartAdded, it, "")
	case it.kind == ItemFunctionCall && it.text.Len() > 0:
		s.argsDelta(it, it.text.String())
	}
}
