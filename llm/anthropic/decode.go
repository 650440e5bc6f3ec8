package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// openBlock is a content block of the answer, by the API's index. A
// block of a type this package does not carry (server tools, citations'
// documents) is skipped, with its deltas.
type openBlock struct {
	index    int    // agentsnap's index: blocks numbered in start order
	typ      string // agentsnap's block type
	skip     bool
	ended    bool
	buf      strings.Builder // text, thinking or the tool call's arguments
	sig      strings.Builder // a thinking block's signature
	data     string          // a redacted_thinking block's data
	id, name string
	input    string // a tool_use block's input at its start, until a delta replaces it
}

// decoder turns the events of one answer into chunks. It is used by one
// goroutine.
type decoder struct {
	scrub      live.Scrubber
	byAPI      map[int]*openBlock // by the API's index
	blocks     []*openBlock       // agentsnap's blocks, in start order
	ids        map[string]bool    // tool-call ids given out in this answer
	calls      int
	usage      Usage
	sawUsage   bool
	stopReason string
	stopped    bool
	frames     int
	out        []session.Chunk
}

func newDecoder(sc live.Scrubber) *decoder {
	return &decoder{scrub: sc, byAPI: map[int]*openBlock{}, ids: map[string]bool{}}
}

// Event decodes one event. Its type is the data's type member (the
// event's name when the data has none). Unknown events are ignored, as
// the SDKs do.
func (d *decoder) Event(name string, data []byte) ([]session.Chunk, *session.Chunk) {
	d.out = d.out[:0]
	d.frames++
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return d.bad(fmt.Sprintf("event %d is not a stream event (%v); it starts %q", d.frames, err, live.Snippet(data)))
	}
	if ev.Type == "" {
		ev.Type = name
	}
	var problem string
	switch ev.Type {
	case EventMessageStart:
		if ev.Message != nil {
			d.addUsage(ev.Message.Usage)
		}
	case EventContentBlockStart:
		problem = d.start(&ev)
	case EventContentBlockDelta:
		problem = d.delta(&ev)
	case EventContentBlockStop:
		problem = d.stop(&ev)
	case EventMessageDelta:
		if ev.Delta != nil {
			var reason string
			if json.Unmarshal(ev.Delta.StopReason, &reason) == nil && reason != "" {
				d.stopReason = reason
			}
		}
		d.addUsage(ev.Usage)
	case EventMessageStop:
		d.stopped = true
	case EventError:
		fin := d.errorFinish(data)
		return nil, &fin
	case "":
		return d.bad(fmt.Sprintf("event %d names no type; it starts %q", d.frames, live.Snippet(data)))
	}
	if problem != "" {
		return d.bad(fmt.Sprintf("event %d (%s): %s", d.frames, ev.Type, problem))
	}
	return d.out, nil
}

// bad is the finish of a stream the decoder cannot read on.
func (d *decoder) bad(msg string) ([]session.Chunk, *session.Chunk) {
	fin := session.ErrorFinish(live.CodeBadStream, d.scrub.Clip("anthropic: "+msg))
	return nil, &fin
}

// at returns the block an event names by its index, or a problem.
func (d *decoder) at(ev *Event) (*openBlock, string) {
	if ev.Index == nil {
		return nil, "no index"
	}
	b := d.byAPI[*ev.Index]
	if b == nil {
		return nil, fmt.Sprintf("content block %d never started", *ev.Index)
	}
	return b, ""
}

func (d *decoder) start(ev *Event) string {
	if ev.Index == nil || ev.ContentBlock == nil {
		return "no index or content_block"
	}
	if d.byAPI[*ev.Index] != nil {
		return fmt.Sprintf("content block %d started twice", *ev.Index)
	}
	cb := ev.ContentBlock
	b := &openBlock{index: len(d.blocks)}
	d.byAPI[*ev.Index] = b
	switch cb.Type {
	case TypeText:
		d.open(b, session.BlockText)
		d.text(b, session.ChunkTextDelta, cb.Text)
	case TypeThinking:
		d.open(b, session.BlockReasoning)
		d.text(b, session.ChunkReasoningDelta, cb.Thinking)
		b.sig.WriteString(cb.Signature)
	case TypeRedactedThinking:
		d.open(b, session.BlockReasoning)
		b.data = cb.Data
	case TypeToolUse:
		if cb.Name == "" {
			return fmt.Sprintf("the tool_use block %d names no tool", *ev.Index)
		}
		d.open(b, session.BlockToolCall)
		d.calls++
		b.id, b.name = d.claimID(cb.ID, b.index), cb.Name
		c := session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ID: b.id, Name: b.name}
		// The input starts as {} and the deltas replace it; an input given
		// whole at the start (some proxies) is the arguments so far.
		if in := compact(cb.Input); in != "" && in != "{}" {
			c.ArgumentsDelta = in
			b.buf.WriteString(in)
		} else {
			b.input = "{}" // also for a start without input
		}
		d.out = append(d.out, c)
	default:
		b.skip = true
	}
	return ""
}

// open starts block b as a block of typ.
func (d *decoder) open(b *openBlock, typ string) {
	b.typ = typ
	d.blocks = append(d.blocks, b)
	d.out = append(d.out, session.Chunk{Type: session.ChunkBlockStart, Index: b.index, BlockType: typ})
}

// text adds text to a text or reasoning block.
func (d *decoder) text(b *openBlock, chunk, text string) {
	if text == "" {
		return
	}
	b.buf.WriteString(text)
	d.out = append(d.out, session.Chunk{Type: chunk, Index: b.index, Text: text})
}

func (d *decoder) delta(ev *Event) string {
	b, problem := d.at(ev)
	switch {
	case problem != "":
		return problem
	case ev.Delta == nil:
		return "no delta"
	case b.skip:
		return ""
	case b.ended:
		return fmt.Sprintf("content block %d already stopped", *ev.Index)
	}
	want := map[string]string{DeltaText: session.BlockText, DeltaThinking: session.BlockReasoning,
		DeltaSignature: session.BlockReasoning, DeltaInputJSON: session.BlockToolCall}[ev.Delta.Type]
	if want == "" {
		return "" // citations, and deltas newer than this package
	}
	if want != b.typ || (b.data != "" && want == session.BlockReasoning) {
		return fmt.Sprintf("a %s for content block %d, which is not of its type", ev.Delta.Type, *ev.Index)
	}
	switch ev.Delta.Type {
	case DeltaText:
		d.text(b, session.ChunkTextDelta, ev.Delta.Text)
	case DeltaThinking:
		d.text(b, session.ChunkReasoningDelta, ev.Delta.Thinking)
	case DeltaSignature:
		b.sig.WriteString(ev.Delta.Signature)
	case DeltaInputJSON:
		if ev.Delta.PartialJSON != "" {
			b.input = ""
			b.buf.WriteString(ev.Delta.PartialJSON)
			d.out = append(d.out, session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ArgumentsDelta: ev.Delta.PartialJSON})
		}
	}
	return ""
}

func (d *decoder) stop(ev *Event) string {
	b, problem := d.at(ev)
	switch {
	case problem != "":
		return problem
	case b.skip:
		return ""
	case b.ended:
		return fmt.Sprintf("content block %d stopped twice", *ev.Index)
	}
	d.end(b)
	return ""
}

// end closes block b with its block-end. A tool call that got no input
// delta has the input of its start ({}) as its arguments.
func (d *decoder) end(b *openBlock) {
	b.ended = true
	blk := &session.Block{Type: b.typ}
	switch b.typ {
	case session.BlockToolCall:
		if b.input != "" {
			b.buf.WriteString(b.input)
			d.out = append(d.out, session.Chunk{Type: session.ChunkToolCallDelta, Index: b.index, ArgumentsDelta: b.input})
			b.input = ""
		}
		blk.ID, blk.Name, blk.Arguments = b.id, b.name, b.buf.String()
	case session.BlockReasoning:
		blk.Text = b.buf.String()
		blk.Meta = Meta{Signature: b.sig.String(), Data: b.data}.JSON()
	default:
		blk.Text = b.buf.String()
	}
	d.out = append(d.out, session.Chunk{Type: session.ChunkBlockEnd, Index: b.index, Block: blk})
}

// addUsage takes the counts u has: message_start's, then message_delta's
// totals.
func (d *decoder) addUsage(u *Usage) {
	if u == nil {
		return
	}
	d.sawUsage = true
	take := func(dst **int, src *int) {
		if src != nil {
			*dst = src
		}
	}
	take(&d.usage.InputTokens, u.InputTokens)
	take(&d.usage.OutputTokens, u.OutputTokens)
	take(&d.usage.CacheCreationInputTokens, u.CacheCreationInputTokens)
	take(&d.usage.CacheReadInputTokens, u.CacheReadInputTokens)
	if u.OutputTokensDetails != nil {
		d.usage.OutputTokensDetails = u.OutputTokensDetails
	}
}

// claimID returns id for the tool call in block index, or, when id is
// empty or another call of this answer already has it, the first of
// toolu_INDEX, ID_INDEX, ID_INDEX_2, … that no call has: the runtime tells
// calls apart by id. It depends only on the ids claimed before, so the
// same stream always gets the same ids.
func (d *decoder) claimID(id string, index int) string {
	got := id
	if got == "" || d.ids[got] {
		base := fmt.Sprintf("%s_%d", id, index)
		if id == "" {
			base = fmt.Sprintf("toolu_%d", index)
		}
		got = base
		for n := 2; d.ids[got]; n++ {
			got = fmt.Sprintf("%s_%d", base, n)
		}
	}
	d.ids[got] = true
	return got
}

// Complete reports whether the API has said the answer is over: a
// message_stop, or a message_delta with its stop_reason.
func (d *decoder) Complete() bool { return d.stopped || d.stopReason != "" }

// End returns the closing chunks: a block-end per block not stopped, in
// index order, the usage if any, and the finish.
func (d *decoder) End() []session.Chunk {
	d.out = d.out[:0]
	for _, b := range d.blocks {
		if !b.ended {
			d.end(b)
		}
	}
	if d.sawUsage {
		d.out = append(d.out, session.Chunk{Type: session.ChunkUsage, Usage: d.usage.session()})
	}
	return append(d.out, d.finish())
}

// finish maps the stop_reason; see the package doc.
func (d *decoder) finish() session.Chunk {
	switch d.stopReason {
	case "max_tokens", "model_context_window_exceeded":
		return session.Finish(session.FinishMaxTokens)
	case "refusal":
		return session.ErrorFinish(live.CodeContentFilter, "anthropic: the model refused to answer (stop_reason refusal)")
	}
	if d.calls > 0 {
		return session.Finish(session.FinishToolCalls)
	}
	return session.Finish(session.FinishStop)
}

// session is the usage in agentsnap's terms: the input counts every
// prompt token, cached ones included, as the other APIs do.
func (u *Usage) session() *session.Usage {
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	out := &session.Usage{
		InputTokens:  n(u.InputTokens) + n(u.CacheReadInputTokens) + n(u.CacheCreationInputTokens),
		OutputTokens: n(u.OutputTokens),
	}
	if u.CacheReadInputTokens != nil {
		read := *u.CacheReadInputTokens
		out.CacheReadTokens = &read
	}
	if u.OutputTokensDetails != nil && u.OutputTokensDetails.ThinkingTokens != nil {
		thinking := *u.OutputTokensDetails.ThinkingTokens
		out.ReasoningTokens = &thinking
	}
	return out
}

// errorFinish is the finish for an error event, its code from the API's
// error type.
func (d *decoder) errorFinish(data []byte) session.Chunk {
	var body ErrorBody
	_ = json.Unmarshal(data, &body)
	msg := body.Error.Message
	if msg == "" {
		msg = "(no message)"
	}
	return session.ErrorFinish(ErrorCode(body.Error.Type), d.scrub.Clip("anthropic: the API sent an error in the stream: "+body.Error.Type+": "+msg))
}

// ErrorCode is the failure code (package live's) of an API error type.
func ErrorCode(errType string) string {
	switch errType {
	case "authentication_error", "permission_error", "billing_error":
		return live.CodeAuth
	case "rate_limit_error":
		return live.CodeRateLimit
	case "overloaded_error", "api_error", "timeout_error":
		return live.CodeServer
	case "invalid_request_error", "not_found_error", "request_too_large":
		return live.CodeBadRequest
	}
	return live.CodeProvider
}

// compact is a JSON value in one line, or "" for none.
func compact(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if bytes.IndexAny(raw, " \t\r\n") < 0 {
		// No space to elide: json.Compact would give raw back, or fail on
		// it, which also leaves raw.
		return string(raw)
	}
	b, err := jsonscan.AppendCompact(make([]byte, 0, len(raw)), raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}
