package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// session is the usage in agentsnap's terms: cached tokens from
// prompt_tokens_details, or DeepSeek's prompt_cache_hit_tokens.
func (u *Usage) session() *session.Usage {
	out := &session.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil {
		out.CacheReadTokens = u.PromptTokensDetails.CachedTokens
	} else if u.PromptCacheHitTokens != nil {
		out.CacheReadTokens = u.PromptCacheHitTokens
	}
	if u.CompletionTokensDetails != nil && u.CompletionTokensDetails.ReasoningTokens != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

// openBlock is a content block that has started. For a tool call, rawID
// is the id the provider sent and id the one the chunks carry (they differ
// when rawID was already taken in this response); key is its calls key.
type openBlock struct {
	index    int
	typ      string
	buf      strings.Builder
	id, name string
	rawID    string
	key      int
}

// decoder turns the data of successive frames into chunks. It keeps the
// open blocks, the finish_reason and the usage seen so far; end closes the
// stream. It is used by one goroutine.
type decoder struct {
	scrub      live.Scrubber
	blocks     []*openBlock // in index order, which is start order
	text       *openBlock
	reasoning  *openBlock
	calls      map[int]*openBlock // the current block of each provider tool_calls index
	ids        map[string]bool    // tool-call ids given out in this response
	toolCalls  int                // tool-call blocks started
	lastCall   int
	hasLast    bool
	finish     string
	sawFinish  bool
	usage      *session.Usage
	out        []session.Chunk
	frameCount int
}

func newDecoder(sc live.Scrubber) *decoder {
	return &decoder{scrub: sc, calls: map[int]*openBlock{}, ids: map[string]bool{}}
}

// Event decodes one frame's data. It returns the chunks to yield (valid
// until the next call) and, when the frame ends the stream with an error,
// the finish chunk.
func (d *decoder) Event(_ string, data []byte) ([]session.Chunk, *session.Chunk) {
	d.out = d.out[:0]
	d.frameCount++
	var f Chunk
	if err := json.Unmarshal(data, &f); err != nil {
		if fin := d.foreignRead(&f, data, err); fin != nil {
			return nil, fin
		}
		fin := session.ErrorFinish(CodeBadStream, d.scrub.Clip(fmt.Sprintf(
			"openai: stream frame %d is not a chunk object (%v); it starts %q", d.frameCount, err, live.Snippet(data))))
		return nil, &fin
	}
	if isErrorFrame(&f) {
		fin := live.StreamErrorFinish(data, d.scrub)
		return nil, &fin
	}
	if f.Usage != nil {
		d.usage = f.Usage.session()
	}
	for i := range f.Choices {
		c := &f.Choices[i]
		if c.Index != 0 {
			continue // only n=1 is requested; other choices would mix into one message
		}
		if fin := d.foreignCall(&c.Delta, data, i); fin != nil {
			return d.out, fin
		}
		d.delta(&c.Delta)
		if c.FinishReason != nil && *c.FinishReason != "" {
			d.finish, d.sawFinish = *c.FinishReason, true
		}
	}
	return d.out, nil
}

func isErrorFrame(f *Chunk) bool {
	return (len(f.Error) > 0 && string(f.Error) != "null") || f.Object == "error"
}

func (d *decoder) delta(dl *Delta) {
	reasoning := dl.ReasoningContent
	if reasoning == nil {
		reasoning = dl.Reasoning
	}
	if reasoning != nil && *reasoning != "" {
		b := d.open(&d.reasoning, session.BlockReasoning)
		b.buf.WriteString(*reasoning)
		d.out = append(d.out, session.Chunk{Type: session.ChunkReasoningDelta, Index: b.index, Text: *reasoning})
	}
	if dl.Content != nil && *dl.Content != "" {
		b := d.open(&d.text, session.BlockText)
		b.buf.WriteString(*dl.Content)
		d.out = append(d.out, session.Chunk{Type: session.ChunkTextDelta, Index: b.index, Text: *dl.Content})
	}
	for i := range dl.ToolCalls {
		d.toolCall(&dl.ToolCalls[i])
	}
}

// open returns *slot, starting a block of typ there first if there is none.
func (d *decoder) open(slot **openBlock, typ string) *openBlock {
	if *slot == nil {
		*slot = d.start(typ)
	}
	return *slot
}

func (d *decoder) start(typ string) *openBlock {
	b := &openBlock{index: len(d.blocks), typ: typ}
	d.blocks = append(d.blocks, b)
	d.out = append(d.out, session.Chunk{Type: session.ChunkBlockStart, Index: b.index, BlockType: typ})
	return b
}

// toolCall applies one tool_calls entry. A delta without an index (some
// servers omit it) continues the call with its id, or the last call when it
// has no id either; a new id opens a new call.
func (d *decoder) toolCall(tc *ToolCallDelta) {
	key := d.callKey(tc)
	b, ok := d.calls[key]
	if ok && tc.ID != "" && b.rawID != "" && tc.ID != b.rawID {
		// Some proxies reuse index 0 for every parallel call; a new id at a
		// known index is a new call, and later fragments at that index
		// belong to it.
		ok = false
	}
	if !ok {
		b = d.start(session.BlockToolCall)
		b.key = key
		d.calls[key] = b
		d.toolCalls++
	}
	d.lastCall, d.hasLast = key, true
	c := session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ArgumentsDelta: tc.Function.Arguments}
	switch {
	case b.rawID == "" && b.id == "" && tc.ID != "":
		b.rawID = tc.ID
		b.id = d.claimID(tc.ID, b.index)
		c.ID = b.id
	case !ok && tc.ID == "":
		// A server that sends no ids: the runtime pairs results with calls
		// by id, so the call gets one unique in the message, on its first
		// delta — the id a client of the recording reads first (the wire
		// layer streams these chunks on) is the one the log holds.
		b.id = d.claimID(fmt.Sprintf("call_%d", b.index), b.index)
		c.ID = b.id
	}
	if b.name == "" && tc.Function.Name != "" {
		b.name, c.Name = tc.Function.Name, tc.Function.Name
	}
	if c.ArgumentsDelta == "" && c.ID == "" && c.Name == "" && ok {
		return // a repeat of what is known: nothing to record
	}
	b.buf.WriteString(tc.Function.Arguments)
	d.out = append(d.out, c)
}

func (d *decoder) callKey(tc *ToolCallDelta) int {
	if tc.Index != nil {
		return *tc.Index
	}
	if tc.ID != "" {
		// The latest current call with this id, found in block order so the
		// choice is the same on every run.
		for i := len(d.blocks) - 1; i >= 0; i-- {
			if b := d.blocks[i]; b.rawID == tc.ID && d.calls[b.key] == b {
				return b.key
			}
		}
		// Keys of index-less calls are negative and strictly decreasing, so
		// they never meet a provider's index or each other.
		return -(len(d.calls) + 1)
	}
	if d.hasLast {
		return d.lastCall
	}
	return 0
}

// claimID returns id for the tool call in block index, or, when another
// call of this response already has id, the first of id_INDEX,
// id_INDEX_2, id_INDEX_3, … that no call has; see the package doc. It
// depends only on the ids claimed before, so the same stream always gets
// the same ids.
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

// Complete reports whether the provider has said the response is over.
func (d *decoder) Complete() bool { return d.sawFinish }

// End returns the closing chunks of a completed stream: a block-end per
// block in index order, the usage if any, and the finish.
func (d *decoder) End() []session.Chunk {
	out := make([]session.Chunk, 0, len(d.blocks)+2)
	for _, b := range d.blocks {
		blk := &session.Block{Type: b.typ}
		if b.typ == session.BlockToolCall {
			blk.ID, blk.Name, blk.Arguments = b.id, b.name, b.buf.String()
		} else {
			blk.Text = b.buf.String()
		}
		out = append(out, session.Chunk{Type: session.ChunkBlockEnd, Index: b.index, Block: blk})
	}
	if d.usage != nil {
		out = append(out, session.Chunk{Type: session.ChunkUsage, Usage: d.usage})
	}
	return append(out, d.finishChunk())
}

// finishChunk maps the provider's finish_reason; see the package doc.
// Every other reason (stop, tool_calls, none) follows the content: the
// runtime acts on tool calls, so their presence decides.
func (d *decoder) finishChunk() session.Chunk {
	switch d.finish {
	case "length":
		return session.Finish(session.FinishMaxTokens)
	case "content_filter":
		return session.ErrorFinish(CodeContentFilter, "openai: the provider stopped the response (finish_reason content_filter)")
	case "insufficient_system_resource":
		return session.ErrorFinish(CodeServer, "openai: the provider cut the response short (finish_reason insufficient_system_resource)")
	}
	if d.toolCalls > 0 {
		return session.Finish(session.FinishToolCalls)
	}
	return session.Finish(session.FinishStop)
}
