package openai

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// decodeMessage reads one element of a request's messages into m as
// json.Unmarshal does: the usual shapes by hand (fastMessage), anything
// else with encoding/json.
func decodeMessage(b []byte, m *Message) error {
	if fastMessage(b, m) {
		return nil
	}
	*m = Message{}
	return json.Unmarshal(b, m)
}

// fastMessage reads b, a message object of the shapes agents send, into m,
// a zero Message, exactly as json.Unmarshal would; Content is a window of
// b rather than a copy. It returns false, m left in any state, for
// anything else: a member it does not know or whose name differs in case
// or is escaped (encoding/json matches names without regard to case), a
// repeated member, content other than a string or null, a value of
// another kind, text that is not one JSON object. A fuzz test holds it to encoding/json.
func fastMessage(b []byte, m *Message) bool {
	end, ok := eachMember(b, func(key, val []byte) (uint8, bool) {
		switch string(key) {
		case "role":
			return 1, fastString(val, &m.Role)
		case "content":
			// A string or null; an array of parts is left to encoding/json,
			// which also bounds its nesting.
			m.Content = val
			return 2, val[0] == '"' || jsonscan.IsNull(val)
		case "reasoning_content":
			return 4, fastString(val, &m.ReasoningContent)
		case "tool_calls":
			return 8, fastToolCalls(val, m)
		case "tool_call_id":
			return 16, fastString(val, &m.ToolCallID)
		}
		return 0, false
	})
	return ok && jsonscan.SkipSpace(b, end) == len(b)
}

// eachMember reads the members of the object b begins with, each by
// member, which returns the member's bit — its own, 1 << n, for each name
// it knows — and whether it read the value. It returns the end of the
// object, and false for a member not known, not read or repeated.
func eachMember(b []byte, member func(key, val []byte) (uint8, bool)) (int, bool) {
	it, ok := openObject(b, 0)
	if !ok {
		return 0, false
	}
	var seen uint8
	for {
		key, val, more, ok := it.next()
		if !ok {
			return 0, false
		}
		if !more {
			return it.i, true
		}
		bit, ok := member(key, val)
		if !ok || bit == 0 || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
	}
}

// fastToolCalls reads a message's tool_calls: null or an array of tool
// calls (an empty one is an empty slice, as encoding/json makes it).
func fastToolCalls(val []byte, m *Message) bool {
	if jsonscan.IsNull(val) {
		return true
	}
	if val[0] != '[' {
		return false
	}
	calls := []ToolCall{}
	i := jsonscan.SkipSpace(val, 1)
	for i < len(val) && val[i] != ']' {
		if len(calls) > 0 {
			if val[i] != ',' {
				return false
			}
			i = jsonscan.SkipSpace(val, i+1)
		}
		end, err := jsonscan.SkipMember(val, i)
		if err != nil {
			return false
		}
		var c ToolCall
		if !fastToolCall(val[i:end], &c) {
			return false
		}
		calls = append(calls, c)
		i = jsonscan.SkipSpace(val, end)
	}
	m.ToolCalls = calls
	return i < len(val)
}

// fastToolCall reads one tool call: id, type and a function of name and
// arguments, each at most once.
func fastToolCall(b []byte, c *ToolCall) bool {
	_, ok := eachMember(b, func(key, val []byte) (uint8, bool) {
		switch string(key) {
		case "id":
			return 1, fastString(val, &c.ID)
		case "type":
			return 2, fastString(val, &c.Type)
		case "function":
			return 4, fastFunction(val, &c.Function)
		}
		return 0, false
	})
	return ok
}

// fastFunction reads a tool call's function: null, or an object of name
// and arguments.
func fastFunction(b []byte, f *FunctionCall) bool {
	if jsonscan.IsNull(b) {
		return true
	}
	_, ok := eachMember(b, func(key, val []byte) (uint8, bool) {
		switch string(key) {
		case "name":
			return 1, fastString(val, &f.Name)
		case "arguments":
			return 2, fastString(val, &f.Arguments)
		}
		return 0, false
	})
	return ok
}

// fastString reads a string member: a JSON string, or null, which leaves
// *dst as it is (encoding/json's rule). The common words are not copied.
func fastString(val []byte, dst *string) bool {
	if jsonscan.IsNull(val) {
		return true
	}
	if val[0] != '"' {
		return false
	}
	switch string(val[1 : len(val)-1]) {
	case "user":
		*dst = "user"
	case "assistant":
		*dst = "assistant"
	case "tool":
		*dst = "tool"
	case "system":
		*dst = "system"
	case "function":
		*dst = "function"
	default:
		s, err := jsonscan.String(val)
		if err != nil {
			return false
		}
		*dst = s
	}
	return true
}

// members steps through the members of an object, validating it.
type members struct {
	b []byte
	i int
}

// openObject starts at the object at b[i] (after space).
func openObject(b []byte, i int) (members, bool) {
	i = jsonscan.SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return members{}, false
	}
	return members{b: b, i: jsonscan.SkipSpace(b, i+1)}, true
}

// next returns the next member's unescaped name and its value, more false
// past the closing brace (it.i then past it), ok false on text that is not
// an object or a name with escapes.
func (it *members) next() (key, val []byte, more, ok bool) {
	b, i := it.b, it.i
	if i >= len(b) {
		return nil, nil, false, false
	}
	if b[i] == '}' {
		it.i = i + 1
		return nil, nil, false, true
	}
	if b[i] != '"' {
		return nil, nil, false, false
	}
	end, esc, err := jsonscan.SkipString(b, i)
	if err != nil || esc {
		return nil, nil, false, false
	}
	key = b[i+1 : end-1]
	if i = jsonscan.SkipSpace(b, end); i >= len(b) || b[i] != ':' {
		return nil, nil, false, false
	}
	i = jsonscan.SkipSpace(b, i+1)
	vend, err := jsonscan.SkipMember(b, i)
	if err != nil {
		return nil, nil, false, false
	}
	val = b[i:vend]
	switch i = jsonscan.SkipSpace(b, vend); {
	case i < len(b) && b[i] == ',':
		if i = jsonscan.SkipSpace(b, i+1); i >= len(b) || b[i] != '"' {
			return nil, nil, false, false // no trailing comma
		}
	case i >= len(b) || b[i] != '}':
		return nil, nil, false, false
	}
	it.i = i
	return key, val, true, true
}
