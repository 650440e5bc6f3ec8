package gemini

import (
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// The events of a streamed answer are written by hand, byte for byte as
// encoding/json's Marshal writes the schema's types (members in field
// order, omitempty as tagged, HTML escaping on), without its reflection:
// a replay writes an event per delta.

// outPart is the part an event carries: a Part with only the members a
// stream writes, held by value so that holding one back allocates nothing.
type outPart struct {
	text    string
	hasText bool // Part.Text is not nil: an empty text still goes out
	thought bool
	sig     string
	call    bool // Part.FunctionCall is not nil
	id      string
	name    string
	args    string // a JSON object that callArgs accepted, or "" for none
}

// appendEvent appends the JSON of the Response of one event: the JSON of
// Response{Candidates: []Candidate{{Content: &Content{Role: "model",
// Parts: []Part{p}}, FinishReason: finish}}, UsageMetadata: u,
// ModelVersion: a.Model, ResponseID: a.ResponseID}.
func appendEvent(dst []byte, a *Answer, p *outPart, finish string, u *UsageMetadata) []byte {
	dst = append(dst, `{"candidates":[{"content":{"role":"model","parts":[`...)
	dst = appendPart(dst, p)
	dst = append(dst, "]}"...)
	if finish != "" {
		dst = append(dst, `,"finishReason":`...)
		dst = jsonscan.AppendHTMLString(dst, finish)
	}
	dst = append(dst, `,"index":0}]`...)
	if u != nil {
		dst = append(dst, `,"usageMetadata":`...)
		dst = appendUsage(dst, u)
	}
	if a.Model != "" {
		dst = append(dst, `,"modelVersion":`...)
		dst = jsonscan.AppendHTMLString(dst, a.Model)
	}
	if a.ResponseID != "" {
		dst = append(dst, `,"responseId":`...)
		dst = jsonscan.AppendHTMLString(dst, a.ResponseID)
	}
	return append(dst, '}')
}

// appendPart appends the JSON of the Part p stands for.
func appendPart(dst []byte, p *outPart) []byte {
	dst = append(dst, '{')
	start := len(dst)
	if p.hasText {
		dst = append(dst, `"text":`...)
		dst = jsonscan.AppendHTMLString(dst, p.text)
	}
	if p.thought {
		dst = append(comma(dst, start), `"thought":true`...)
	}
	if p.sig != "" {
		dst = append(comma(dst, start), `"thoughtSignature":`...)
		dst = jsonscan.AppendHTMLString(dst, p.sig)
	}
	if p.call {
		dst = append(comma(dst, start), `"functionCall":{`...)
		if p.id != "" {
			dst = append(dst, `"id":`...)
			dst = jsonscan.AppendHTMLString(dst, p.id)
			dst = append(dst, ',')
		}
		dst = append(dst, `"name":`...)
		dst = jsonscan.AppendHTMLString(dst, p.name)
		if p.args != "" {
			dst = append(dst, `,"args":`...)
			dst = appendArgs(dst, p.args)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// comma appends the comma before a member of an object whose members
// start at start, unless it is the first.
func comma(dst []byte, start int) []byte {
	if len(dst) > start {
		return append(dst, ',')
	}
	return dst
}

// callArgs returns the arguments text of a tool call as functionCall.args
// holds it, and whether argsObject accepts it: "" is {}, anything but one
// JSON object is refused. The object is trimmed as argsObject trims it,
// and jsonscan accepts exactly what encoding/json does. It checks a copy
// in scratch, grown as needed: jsonscan reads bytes, and converting the
// string would allocate.
func callArgs(arguments string, scratch *[]byte) (string, bool) {
	t := strings.TrimSpace(arguments)
	if t == "" {
		return "{}", true
	}
	if t[0] != '{' {
		return "", false
	}
	*scratch = append((*scratch)[:0], t...)
	end, err := jsonscan.SkipValue(*scratch, 0)
	return t, err == nil && end == len(t)
}

// appendArgs appends args, an object callArgs accepted, as Marshal writes
// a json.RawMessage: compacted, then with <, >, &, U+2028 and U+2029
// escaped, for HTML escaping is on (in valid JSON they stand only inside
// strings, so escaping them anywhere is escaping them there). Each step
// writes past the text it reads, which then moves down: no other buffer,
// no string converted to bytes.
func appendArgs(dst []byte, args string) []byte {
	n := len(dst)
	dst = append(dst, args...)
	m := len(dst)
	dst, _ = jsonscan.AppendCompact(dst, dst[n:m]) // cannot fail: callArgs checked it
	dst = dst[:n+copy(dst[n:], dst[m:])]
	if !htmlUnsafe(dst[n:]) {
		return dst
	}
	m = len(dst)
	dst = appendHTMLEscaped(dst, dst[n:m])
	return dst[:n+copy(dst[n:], dst[m:])]
}

// htmlUnsafe reports whether b holds a byte appendHTMLEscaped changes.
func htmlUnsafe(b []byte) bool {
	for _, c := range b {
		if c == '<' || c == '>' || c == '&' || c == 0xE2 {
			return true
		}
	}
	return false
}

// appendHTMLEscaped appends src with <, > and & as \u003c, \u003e and
// \u0026 and the bytes of U+2028 and U+2029 as \u2028 and \u2029, as
// encoding/json's compact does with HTML escaping on.
func appendHTMLEscaped(dst, src []byte) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}

// appendUsage appends the JSON of u.
func appendUsage(dst []byte, u *UsageMetadata) []byte {
	dst = append(dst, `{"promptTokenCount":`...)
	dst = strconv.AppendInt(dst, int64(u.PromptTokenCount), 10)
	dst = append(dst, `,"candidatesTokenCount":`...)
	dst = strconv.AppendInt(dst, int64(u.CandidatesTokenCount), 10)
	dst = appendOptInt(dst, `,"thoughtsTokenCount":`, u.ThoughtsTokenCount)
	dst = appendOptInt(dst, `,"cachedContentTokenCount":`, u.CachedContentTokenCount)
	dst = appendOptInt(dst, `,"toolUsePromptTokenCount":`, u.ToolUsePromptTokenCount)
	dst = append(dst, `,"totalTokenCount":`...)
	dst = strconv.AppendInt(dst, int64(u.TotalTokenCount), 10)
	return append(dst, '}')
}

// appendOptInt appends the member key (with its comma and colon) and n,
// unless n is 0 (omitempty).
func appendOptInt(dst []byte, key string, n int) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), int64(n), 10)
}

// appendErrorEvent appends the JSON of an error event:
// map[string]APIError{"error": {Code: status, Message: message, Status:
// statusName(status)}}.
func appendErrorEvent(dst []byte, status int, message string) []byte {
	dst = append(dst, `{"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, `,"message":`...)
	dst = jsonscan.AppendHTMLString(dst, message)
	dst = append(dst, `,"status":`...)
	dst = jsonscan.AppendHTMLString(dst, statusName(status))
	return append(dst, "}}"...)
}
