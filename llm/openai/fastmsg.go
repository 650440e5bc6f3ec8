package openai

import "github.com/agentsnap/agentsnap/internal/jsonscan"

// decodeMessage reads one element of a request's messages into m as
// json.Unmarshal does: the usual shapes by hand (fastMessage), anything
// else with encoding/json.
func decodeMessage(b []byte, m *Message) error { return jsonscan.Decode(b, m, fastMessage) }

// fastMessage reads b, a message object of the shapes agents send, into m,
// a zero Message, exactly as json.Unmarshal would; Content is a window of
// b rather than a copy. It returns false, m left in any state, for
// anything else: a member it does not know or whose name differs in case
// or is escaped (encoding/json matches names without regard to case), a
// repeated member, content other than a string or null, a value of
// another kind, text that is not one JSON object. A fuzz test holds it to encoding/json.
func fastMessage(b []byte, m *Message) bool {
	return eachMember(b, func(key, val []byte) (uint8, bool) {
		switch string(key) {
		case "role":
			return 1, jsonscan.StringField(val, &m.Role)
		case "content":
			// A string or null; an array of parts is left to encoding/json,
			// which also bounds its nesting.
			m.Content = val
			return 2, val[0] == '"' || jsonscan.IsNull(val)
		case "reasoning_content":
			return 4, jsonscan.StringField(val, &m.ReasoningContent)
		case "tool_calls":
			return 8, fastToolCalls(val, m)
		case "tool_call_id":
			return 16, jsonscan.StringField(val, &m.ToolCallID)
		}
		return 0, false
	})
}

// eachMember reads the object b is, exactly (space around it aside), each
// member by member, which returns the member's bit — its own, 1 << n, for
// each name it knows — and whether it read the value. It returns false for
// a member not known, not read or repeated.
func eachMember(b []byte, member func(key, val []byte) (uint8, bool)) bool {
	var seen uint8
	return jsonscan.EachMember(b, func(key, val []byte) bool {
		bit, ok := member(key, val)
		if !ok || bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
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
	return eachMember(b, func(key, val []byte) (uint8, bool) {
		switch string(key) {
		case "id":
			return 1, jsonscan.StringField(val, &c.ID)
		case "type":
			return 2, jsonscan.StringField(val, &c.Type)
		case "function":
			return 4, fastFunction(val, &c.Function)
		}
		return 0, false
	})
}

// fastFunction reads a tool call's function: null, or an object of name
// and arguments.
func fastFunction(b []byte, f *FunctionCall) bool {
	if jsonscan.IsNull(b) {
		return true
	}
	return eachMember(b, func(key, val []byte) (uint8, bool) {
		switch string(key) {
		case "name":
			return 1, jsonscan.StringField(val, &f.Name)
		case "arguments":
			return 2, jsonscan.StringField(val, &f.Arguments)
		}
		return 0, false
	})
}
