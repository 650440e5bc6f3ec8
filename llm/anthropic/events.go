package anthropic

import (
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// The events of a served stream are written by hand, byte for byte as
// marshal (an Encoder with HTML escaping off) writes the Event values they
// stand for, without its reflection: a replay writes an event per delta.
// Strings go out as AppendStdString writes them, but for those of a
// content_block_start's block: the Encoder copies what Block.MarshalJSON
// wrote (AppendString: \b and \f as \u0008 and \u000c), and for
// stop_reason, a json.Marshal'd RawMessage (AppendHTMLString).

// appendMessageStart appends the data of the stream's first event: the
// JSON of Event{Type: EventMessageStart, Message: &Response{ID: id, Type:
// "message", Role: "assistant", Content: []Block{}, Model: model, Usage:
// apiUsage(nil)}}.
func appendMessageStart(dst []byte, id, model string) []byte {
	dst = append(dst, `{"type":"message_start","message":{"id":`...)
	dst = jsonscan.AppendStdString(dst, id)
	dst = append(dst, `,"type":"message","role":"assistant","content":[],"model":`...)
	dst = jsonscan.AppendStdString(dst, model)
	dst = append(dst, `,"stop_reason":null,"stop_sequence":null,"usage":`...)
	dst = appendUsage(dst, nil)
	return append(dst, "}}"...)
}

// appendBlockStart appends the JSON of Event{Type:
// EventContentBlockStart, Index: &index, ContentBlock: b}, as
// Block.MarshalJSON writes b; false, with dst as it was, for a block no
// stream starts with (a tool_result, an input other than {}), which
// marshal writes.
func appendBlockStart(dst []byte, index int, b *Block) ([]byte, bool) {
	if b.Type == TypeToolResult || b.Type == TypeToolUse && string(b.Input) != "{}" {
		return dst, false
	}
	dst = appendIndexed(dst, `{"type":"content_block_start","index":`, index)
	dst = append(dst, `,"content_block":{"type":`...)
	dst = jsonscan.AppendString(dst, b.Type)
	switch b.Type {
	case TypeText:
		dst = appendBlockString(dst, `,"text":`, b.Text)
	case TypeThinking:
		dst = appendBlockString(dst, `,"thinking":`, b.Thinking)
		dst = appendBlockString(dst, `,"signature":`, b.Signature)
	case TypeRedactedThinking:
		dst = appendBlockString(dst, `,"data":`, b.Data)
	case TypeToolUse:
		dst = appendBlockString(dst, `,"id":`, b.ID)
		dst = appendBlockString(dst, `,"name":`, b.Name)
		dst = append(dst, `,"input":{}`...)
	}
	return append(dst, "}}"...), true
}

// appendBlockString appends a member of a block, key with its colon.
func appendBlockString(dst []byte, key, val string) []byte {
	return jsonscan.AppendString(append(dst, key...), val)
}

// appendBlockDelta appends the JSON of Event{Type:
// EventContentBlockDelta, Index: &index, Delta: d}; false, with dst as it
// was, for a delta carrying message_delta's members, which marshal writes.
func appendBlockDelta(dst []byte, index int, d *Delta) ([]byte, bool) {
	if len(d.StopReason) > 0 || len(d.StopSequence) > 0 {
		return dst, false
	}
	dst = appendIndexed(dst, `{"type":"content_block_delta","index":`, index)
	dst = append(dst, `,"delta":{`...)
	start := len(dst)
	// Every member is omitempty.
	dst = appendOmitEmpty(dst, start, `"type":`, d.Type)
	dst = appendOmitEmpty(dst, start, `"text":`, d.Text)
	dst = appendOmitEmpty(dst, start, `"partial_json":`, d.PartialJSON)
	dst = appendOmitEmpty(dst, start, `"thinking":`, d.Thinking)
	dst = appendOmitEmpty(dst, start, `"signature":`, d.Signature)
	return append(dst, "}}"...), true
}

// appendOmitEmpty appends the member key (with its colon) of an object
// whose members start at start, unless val is empty.
func appendOmitEmpty(dst []byte, start int, key, val string) []byte {
	if val == "" {
		return dst
	}
	if len(dst) > start {
		dst = append(dst, ',')
	}
	return jsonscan.AppendStdString(append(dst, key...), val)
}

// appendBlockStop appends the JSON of Event{Type: EventContentBlockStop,
// Index: &index}.
func appendBlockStop(dst []byte, index int) []byte {
	return append(appendIndexed(dst, `{"type":"content_block_stop","index":`, index), '}')
}

// appendIndexed appends head and the index after it.
func appendIndexed(dst []byte, head string, index int) []byte {
	return strconv.AppendInt(append(dst, head...), int64(index), 10)
}

// appendMessageDelta appends the JSON of Event{Type: EventMessageDelta,
// Delta: &Delta{StopReason: json.Marshal(reason), StopSequence: null},
// Usage: apiUsage(u)}.
func appendMessageDelta(dst []byte, reason string, u *session.Usage) []byte {
	dst = append(dst, `{"type":"message_delta","delta":{"stop_reason":`...)
	dst = jsonscan.AppendHTMLString(dst, reason)
	dst = append(dst, `,"stop_sequence":null},"usage":`...)
	dst = appendUsage(dst, u)
	return append(dst, '}')
}

// appendUsage appends the JSON of apiUsage(u), without building it: the
// input without the tokens read from the cache, nil as zero counts.
func appendUsage(dst []byte, u *session.Usage) []byte {
	in, out := 0, 0
	if u != nil {
		in, out = u.InputTokens, u.OutputTokens
		if u.CacheReadTokens != nil {
			in = max(in-*u.CacheReadTokens, 0)
		}
	}
	dst = appendIndexed(dst, `{"input_tokens":`, in)
	dst = appendIndexed(dst, `,"output_tokens":`, out)
	if u != nil && u.CacheReadTokens != nil {
		dst = appendIndexed(dst, `,"cache_read_input_tokens":`, *u.CacheReadTokens)
	}
	if u != nil && u.ReasoningTokens != nil {
		dst = appendIndexed(dst, `,"output_tokens_details":{"thinking_tokens":`, *u.ReasoningTokens)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendErrorEvent appends the JSON of Event{Type: EventError, Error: e}.
func appendErrorEvent(dst []byte, e *ErrorDetail) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	dst = jsonscan.AppendStdString(dst, e.Type)
	dst = append(dst, `,"message":`...)
	dst = jsonscan.AppendStdString(dst, e.Message)
	return append(dst, "}}"...)
}
