package responses

import (
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// The events of a streamed answer are written by hand, byte for byte as a
// json.Encoder with HTML escaping off writes the schema's Event (members
// in field order, omitempty kept), without its reflection: a replay
// writes an event per delta. frames_test.go holds each to encoding/json.

// appendOpt appends ,"key":val unless val is empty (an omitempty string
// member after the first).
func appendOpt(dst []byte, key, val string) []byte {
	if val == "" {
		return dst
	}
	dst = append(dst, key...)
	return jsonscan.AppendStdString(dst, val)
}

// appendID appends the item's ,"id" or ,"item_id" member (key), unless its
// id is empty. The id is escaped once: an event per delta names it.
func appendID(dst []byte, key string, it *outItem) []byte {
	if it.id == "" {
		return dst
	}
	if it.quotedID == nil { // the id is fixed once the item is added
		it.quotedID = jsonscan.AppendStdString(nil, it.id)
	}
	return append(append(dst, key...), it.quotedID...)
}

// appendNullable appends val, or null when it is empty (a *string member
// set only when there is something to say).
func appendNullable(dst []byte, val string) []byte {
	if val == "" {
		return append(dst, "null"...)
	}
	return jsonscan.AppendStdString(dst, val)
}

// appendAddedItem appends it as output_item.added shows it: just begun.
func appendAddedItem(dst []byte, it *outItem) []byte {
	switch it.kind {
	case ItemFunctionCall:
		dst = append(dst, `{"type":"function_call"`...)
		dst = appendID(dst, `,"id":`, it)
		dst = append(dst, `,"status":"in_progress"`...)
		dst = appendOpt(dst, `,"call_id":`, it.callID)
		dst = appendOpt(dst, `,"name":`, it.name)
		return append(dst, `,"arguments":""}`...)
	case ItemReasoning:
		dst = append(dst, `{"type":"reasoning"`...)
		dst = appendID(dst, `,"id":`, it)
		return append(dst, `,"summary":[]}`...)
	}
	dst = append(dst, `{"type":"message"`...)
	dst = appendID(dst, `,"id":`, it)
	return append(dst, `,"status":"in_progress","role":"assistant","content":[]}`...)
}

// appendDoneItem appends the complete item: doneItem's JSON.
func appendDoneItem(dst []byte, it *outItem) []byte {
	text := it.text.String()
	switch it.kind {
	case ItemFunctionCall:
		dst = append(dst, `{"type":"function_call"`...)
		dst = appendID(dst, `,"id":`, it)
		dst = append(dst, `,"status":"completed"`...)
		dst = appendOpt(dst, `,"call_id":`, it.callID)
		dst = appendOpt(dst, `,"name":`, it.name)
		dst = append(dst, `,"arguments":`...)
		dst = jsonscan.AppendStdString(dst, text)
		return append(dst, '}')
	case ItemReasoning:
		dst = append(dst, `{"type":"reasoning"`...)
		dst = appendID(dst, `,"id":`, it)
		if text == "" {
			dst = append(dst, `,"summary":[]`...)
		} else {
			dst = append(dst, `,"summary":[{"type":"summary_text","text":`...)
			dst = jsonscan.AppendStdString(dst, text)
			dst = append(dst, "}]"...)
		}
		dst = appendOpt(dst, `,"encrypted_content":`, it.meta.EncryptedContent)
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"message"`...)
	dst = appendID(dst, `,"id":`, it)
	dst = append(dst, `,"status":"completed","role":"assistant"`...)
	dst = appendOpt(dst, `,"phase":`, it.meta.Phase)
	// doneItem's content is json.Marshal's, HTML escaping on; the
	// encoder compacts it as it is.
	dst = append(dst, `,"content":[{"type":"output_text","text":`...)
	dst = jsonscan.AppendHTMLString(dst, text)
	return append(dst, `,"annotations":[]}]}`...)
}

// appendTools appends the tools member of a's responses: newResponse's
// Tools, the parameters compacted as encoding/json compacts a RawMessage.
// It fails where encoding/json would: on parameters that are not JSON.
func appendTools(dst []byte, tools []llm.ToolSpec) ([]byte, error) {
	dst = append(dst, '[')
	for i := range tools {
		t := &tools[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"function"`...)
		dst = appendOpt(dst, `,"name":`, t.Name)
		dst = appendOpt(dst, `,"description":`, t.Description)
		if len(t.Parameters) > 0 {
			var err error
			if dst, err = jsonscan.AppendCompact(append(dst, `,"parameters":`...), t.Parameters); err != nil {
				return dst, err
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// response is what a response event says beyond the call's Answer.
type response struct {
	id, status string
	tools      []byte // appendTools'
	items      []*outItem
	incomplete *Incomplete
	usage      *session.Usage
	final      bool // completed or incomplete: it has output and usage
}

// appendResponse appends the response object of a: newResponse's, with
// r's status, items and usage (usageOf's) once final.
func appendResponse(dst []byte, a *Answer, r *response) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonscan.AppendStdString(dst, r.id)
	dst = append(dst, `,"object":"response","created_at":0,"status":`...)
	dst = jsonscan.AppendStdString(dst, r.status)
	dst = append(dst, `,"error":null,"incomplete_details":`...)
	if r.incomplete != nil {
		dst = jsonscan.AppendStdString(append(dst, `{"reason":`...), r.incomplete.Reason)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"instructions":`...)
	dst = appendNullable(dst, a.Instructions)
	dst = append(dst, `,"model":`...)
	dst = jsonscan.AppendStdString(dst, a.Model)
	dst = append(dst, `,"output":[`...)
	for i, it := range r.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendDoneItem(dst, it)
	}
	dst = append(dst, `],"previous_response_id":`...)
	dst = appendNullable(dst, a.Previous)
	dst = append(dst, `,"tools":`...)
	dst = append(dst, r.tools...)
	dst = append(dst, `,"usage":`...)
	if !r.final {
		return append(dst, "null}"...)
	}
	dst = appendUsage(dst, r.usage)
	return append(dst, '}')
}

// appendUsage appends usageOf(u): zeros for a call that reported none.
func appendUsage(dst []byte, u *session.Usage) []byte {
	var in, out, cached, reasoning int
	if u != nil {
		in, out = u.InputTokens, u.OutputTokens
		if u.CacheReadTokens != nil {
			cached = *u.CacheReadTokens
		}
		if u.ReasoningTokens != nil {
			reasoning = *u.ReasoningTokens
		}
	}
	dst = strconv.AppendInt(append(dst, `{"input_tokens":`...), int64(in), 10)
	dst = strconv.AppendInt(append(dst, `,"input_tokens_details":{"cached_tokens":`...), int64(cached), 10)
	dst = strconv.AppendInt(append(dst, `},"output_tokens":`...), int64(out), 10)
	dst = strconv.AppendInt(append(dst, `,"output_tokens_details":{"reasoning_tokens":`...), int64(reasoning), 10)
	dst = strconv.AppendInt(append(dst, `},"total_tokens":`...), int64(in+out), 10)
	return append(dst, '}')
}

// appendErrorEvent appends the members of a failed call's error event
// after its sequence_number: the documented code and message, and the
// error object OpenAI nests.
func appendErrorEvent(dst []byte, code, msg string) []byte {
	dst = append(dst, `,"code":`...)
	dst = jsonscan.AppendStdString(dst, code)
	dst = append(dst, `,"message":`...)
	dst = jsonscan.AppendStdString(dst, msg)
	dst = append(dst, `,"param":null,"error":{"type":"agentsnap_replay_error"`...)
	dst = appendOpt(dst, `,"code":`, code)
	dst = append(dst, `,"message":`...)
	dst = jsonscan.AppendStdString(dst, msg)
	return append(dst, `,"param":null}`...)
}
