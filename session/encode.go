package session

import (
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// appendPayload appends the encoding MarshalData gives v, for the payload
// types the runtime writes on every model call, without encoding/json's
// reflection and re-validation of MarshalJSON output. ok is false for any
// other type (and for nil pointers), which MarshalData leaves to
// encoding/json. The output is byte for byte encoding/json's with HTML
// escaping off: field order, omitempty, null for a nil slice, and
// encoding/json's string escapes (jsonscan.AppendStdString); the tests compare the two.
func appendPayload(dst []byte, v any) (out []byte, ok bool) {
	switch x := v.(type) {
	case Message:
		return appendMessage(dst, &x), true
	case *Message:
		return appendPtr(dst, x, appendMessage)
	case Part:
		return appendPart(dst, &x), true
	case []Part:
		if x != nil { // nil is null: encoding/json's
			return appendParts(dst, x), true
		}
	case TurnStartData:
		return appendTurnStart(dst, &x), true
	case *TurnStartData:
		return appendPtr(dst, x, appendTurnStart)
	case StepData:
		return appendStep(dst, &x), true
	case *StepData:
		return appendPtr(dst, x, appendStep)
	case RequestHeaderData:
		return appendRequestHeader(dst, &x), true
	case *RequestHeaderData:
		return appendPtr(dst, x, appendRequestHeader)
	case AssistantMessageData:
		return appendAssistantMessage(dst, &x), true
	case *AssistantMessageData:
		return appendPtr(dst, x, appendAssistantMessage)
	case ToolCallData:
		return appendToolCall(dst, &x), true
	case *ToolCallData:
		return appendPtr(dst, x, appendToolCall)
	case ToolResultData:
		return appendToolResult(dst, &x), true
	case *ToolResultData:
		return appendPtr(dst, x, appendToolResult)
	case TurnEndData:
		return appendTurnEnd(dst, &x), true
	case *TurnEndData:
		return appendPtr(dst, x, appendTurnEnd)
	case *Usage:
		return appendPtr(dst, x, appendUsage)
	case *FinishReason:
		return appendPtr(dst, x, appendFinishReason)
	}
	return dst, false
}

// appendPtr appends *x with f; a nil pointer (null) is left to encoding/json.
func appendPtr[T any](dst []byte, x *T, f func([]byte, *T) []byte) ([]byte, bool) {
	if x == nil {
		return dst, false
	}
	return f(dst, x), true
}

// appendMember appends `,"key":` (or `{"key":` for the first member).
func appendMember(dst []byte, first bool, key string) []byte {
	if first {
		dst = append(dst, '{', '"')
	} else {
		dst = append(dst, ',', '"')
	}
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

func appendIntMember(dst []byte, first bool, key string, n int) []byte {
	return strconv.AppendInt(appendMember(dst, first, key), int64(n), 10)
}

func appendStringMember(dst []byte, key, s string) []byte {
	return jsonscan.AppendStdString(appendMember(dst, false, key), s)
}

func appendMessage(dst []byte, m *Message) []byte {
	dst = jsonscan.AppendStdString(appendMember(dst, true, "role"), m.Role)
	dst = appendMember(dst, false, "content")
	if m.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendParts(dst, m.Content)
	}
	if m.ID != "" {
		dst = appendStringMember(dst, "id", m.ID)
	}
	return append(dst, '}')
}

func appendParts(dst []byte, parts []Part) []byte {
	dst = append(dst, '[')
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendPart(dst, &parts[i])
	}
	return append(dst, ']')
}

// appendPart is Part.MarshalJSON: the members of the part's type in a
// fixed order, strings as jsonscan writes them.
func appendPart(dst []byte, p *Part) []byte {
	dst = jsonscan.AppendString(append(dst, `{"type":`...), p.Type)
	switch p.Type {
	case PartToolCall:
		dst = jsonscan.AppendString(append(dst, `,"id":`...), p.ID)
		dst = jsonscan.AppendString(append(dst, `,"name":`...), p.Name)
		dst = jsonscan.AppendString(append(dst, `,"arguments":`...), p.Arguments)
	case PartToolResult:
		dst = jsonscan.AppendString(append(dst, `,"toolCallId":`...), p.ToolCallID)
		dst = appendOptString(dst, "name", p.Name)
		dst = appendParts(append(dst, `,"content":`...), p.Content)
		if p.IsError {
			dst = append(dst, `,"isError":true`...)
		} else {
			dst = append(dst, `,"isError":false`...)
		}
	case PartImage, PartFile:
		dst = appendAttachment(append(dst, `,"attachment":`...), p.Attachment)
	default:
		dst = jsonscan.AppendString(append(dst, `,"text":`...), p.Text)
	}
	if len(p.Meta) > 0 {
		if out, err := jsonscan.AppendCompact(append(dst, `,"meta":`...), p.Meta); err == nil {
			dst = out
		}
	}
	return append(dst, '}')
}

// appendAttachment writes a's members in Attachment's order, each only
// when set; nil is {}.
func appendAttachment(dst []byte, a *Attachment) []byte {
	if a == nil {
		return append(dst, `{}`...)
	}
	first := true
	str := func(key, v string) {
		if v != "" {
			dst = jsonscan.AppendString(appendMember(dst, first, key), v)
			first = false
		}
	}
	num := func(key string, n int) {
		if n != 0 {
			dst = appendIntMember(dst, first, key, n)
			first = false
		}
	}
	str("attachmentId", a.ID)
	str("url", a.URL)
	str("fileId", a.FileID)
	str("mediaType", a.MediaType)
	num("bytes", a.Bytes)
	num("width", a.Width)
	num("height", a.Height)
	str("name", a.Name)
	if len(a.VideoMetadata) > 0 {
		if out, err := jsonscan.AppendCompact(appendMember(dst, first, "videoMetadata"), a.VideoMetadata); err == nil {
			dst, first = out, false
		}
	}
	if first {
		return append(dst, `{}`...)
	}
	return append(dst, '}')
}

func appendTurnStart(dst []byte, d *TurnStartData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	if d.Trigger != "" {
		dst = appendStringMember(dst, "trigger", d.Trigger)
	}
	return append(dst, '}')
}

func appendStep(dst []byte, d *StepData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	return append(appendIntMember(dst, false, "step", d.Step), '}')
}

func appendRequestHeader(dst []byte, d *RequestHeaderData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	dst = appendIntMember(dst, false, "step", d.Step)
	if d.Attempt != 0 {
		dst = appendIntMember(dst, false, "attempt", d.Attempt)
	}
	dst = appendStringMember(dst, "provider", d.Provider)
	dst = appendStringMember(dst, "model", d.Model)
	dst = appendStringMember(dst, "systemDigest", d.SystemDigest)
	dst = appendIntMember(dst, false, "systemChars", d.SystemChars)
	dst = appendStringMember(dst, "toolsDigest", d.ToolsDigest)
	dst = appendIntMember(dst, false, "toolCount", d.ToolCount)
	if len(d.ToolNames) > 0 {
		dst = appendStrings(appendMember(dst, false, "toolNames"), d.ToolNames)
	}
	if len(d.ToolDigests) > 0 {
		dst = appendStrings(appendMember(dst, false, "toolDigests"), d.ToolDigests)
	}
	dst = appendStringMember(dst, "messagesDigest", d.MessagesDigest)
	dst = appendIntMember(dst, false, "messageCount", d.MessageCount)
	if len(d.MessageDigests) > 0 {
		dst = appendStrings(appendMember(dst, false, "messageDigests"), d.MessageDigests)
	}
	if d.API != "" {
		dst = appendStringMember(dst, "api", d.API)
	}
	if len(d.Settings) > 0 {
		// Compacted, as encoding/json writes a json.RawMessage.
		dst = appendMember(dst, false, "settings")
		if out, err := jsonscan.AppendCompact(dst, d.Settings); err == nil {
			dst = out
		} else {
			dst = append(dst, d.Settings...)
		}
	}
	return append(dst, '}')
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonscan.AppendStdString(dst, s)
	}
	return append(dst, ']')
}

func appendAssistantMessage(dst []byte, d *AssistantMessageData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	dst = appendIntMember(dst, false, "step", d.Step)
	dst = appendMessage(appendMember(dst, false, "message"), &d.Message)
	if d.Usage != nil {
		dst = appendUsage(appendMember(dst, false, "usage"), d.Usage)
	}
	return append(dst, '}')
}

func appendToolCall(dst []byte, d *ToolCallData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	dst = appendIntMember(dst, false, "step", d.Step)
	dst = appendStringMember(dst, "callId", d.CallID)
	dst = appendStringMember(dst, "name", d.Name)
	dst = appendStringMember(dst, "arguments", d.Arguments)
	return append(dst, '}')
}

func appendToolResult(dst []byte, d *ToolResultData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	dst = appendIntMember(dst, false, "step", d.Step)
	dst = appendMessage(appendMember(dst, false, "message"), &d.Message)
	return append(dst, '}')
}

func appendTurnEnd(dst []byte, d *TurnEndData) []byte {
	dst = appendIntMember(dst, true, "turn", d.Turn)
	dst = appendMember(dst, false, "reason")
	dst = jsonscan.AppendStdString(appendMember(dst, true, "kind"), d.Reason.Kind)
	if d.Reason.Message != "" {
		dst = appendStringMember(dst, "message", d.Reason.Message)
	}
	return append(dst, '}', '}')
}

func appendUsage(dst []byte, u *Usage) []byte {
	dst = appendIntMember(dst, true, "inputTokens", u.InputTokens)
	dst = appendIntMember(dst, false, "outputTokens", u.OutputTokens)
	if u.CacheReadTokens != nil {
		dst = appendIntMember(dst, false, "cacheReadTokens", *u.CacheReadTokens)
	}
	if u.ReasoningTokens != nil {
		dst = appendIntMember(dst, false, "reasoningTokens", *u.ReasoningTokens)
	}
	return append(dst, '}')
}

func appendFinishReason(dst []byte, r *FinishReason) []byte {
	dst = jsonscan.AppendStdString(appendMember(dst, true, "kind"), r.Kind)
	if f := r.Failure; f != nil {
		dst = jsonscan.AppendStdString(appendMember(appendMember(dst, false, "failure"), true, "message"), f.Message)
		if f.Code != "" {
			dst = appendStringMember(dst, "code", f.Code)
		}
		if f.Status != 0 {
			dst = appendIntMember(dst, false, "status", f.Status)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}
