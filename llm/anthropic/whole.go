package anthropic

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
)

// requestNames are the members encoding/json matches with decodeStd's
// fields, in any case.
var requestNames = [...]string{"model", "system", "messages", "tools", "stream"}

// fastRequest reads body as decodeStd does, by hand: the first request of
// every session, and every request of an agent whose history is not the
// last one's and more, is read whole. It returns false for anything it
// does not read exactly as encoding/json does — a known name in other case,
// escaped or repeated, a value of another kind, a message or a tool that
// does not read, text after the object — and decodeStd reads that, for its
// value or its error.
func fastRequest(body []byte) (*Call, bool) {
	var members [][2][]byte // key, value
	var first [8][2][]byte
	members = first[:0]
	size, seen := 0, uint8(0)
	ok := jsonscan.EachMember(body, func(key, val []byte) bool {
		for k, name := range requestNames {
			switch {
			case string(key) == name:
				if seen&(1<<k) != 0 {
					return false
				}
				seen |= 1 << k
			case jsonscan.OtherCase(key, name):
				return false // encoding/json might fill the field with it
			}
		}
		members = append(members, [2][]byte{key, val})
		size += len(val)
		return true
	})
	if !ok {
		return nil, false
	}
	// Every member as sent, copied into one buffer, as encoding/json
	// copies each: the Call outlives the body, which the caller may reuse.
	// The messages and tools are read from the copy, their inputs and
	// schemas windows of it.
	buf := make([]byte, 0, size)
	call := &Call{Members: make(map[string]json.RawMessage, len(members))}
	var system, messages, tools []byte
	for _, m := range members {
		start := len(buf)
		buf = append(buf, m[1]...)
		val := buf[start:len(buf):len(buf)]
		name := memberName(m[0])
		call.Members[name] = val
		switch name {
		case "model":
			ok = jsonscan.StringField(val, &call.Model)
		case "stream":
			ok = jsonscan.BoolField(val, &call.Stream)
		case "system":
			system = val
		case "messages":
			messages = val
		case "tools":
			tools = val
		}
		if !ok {
			return nil, false
		}
	}
	var sys Content
	var err error
	if system != nil && !fastContent(system, &sys) {
		return nil, false
	}
	if call.System, err = systemText(sys); err != nil {
		return nil, false
	}
	if messages != nil && !fastMessages(messages, call) {
		return nil, false
	}
	if tools != nil && !fastTools(tools, &call.Tools) {
		return nil, false
	}
	return call, true
}

// memberName is a member's name as a string: a known one without a copy.
func memberName(key []byte) string {
	for _, name := range requestNames {
		if string(key) == name {
			return name
		}
	}
	return string(key)
}

// fastMessages reads the messages array val into call, as decodeStd reads
// them: each message as json.Unmarshal would (decodeElem), a tool result
// named after the tool_use before it.
func fastMessages(val []byte, call *Call) bool {
	switch val[0] {
	case 'n':
		return true
	case '[':
	default:
		return false
	}
	names := map[string]string{}
	return jsonscan.Elements(val, func(elem []byte) error {
		var m Message
		if decodeElem(elem, &m) != nil {
			return errFallBack
		}
		msgs, err := decodeMessage(&m, names)
		if err != nil {
			return errFallBack
		}
		call.Messages = append(call.Messages, msgs...)
		return nil
	}) == nil
}

// fastTools reads the tools array val as decodeStd does: objects of a
// name, a description and an input_schema, each named.
func fastTools(val []byte, tools *[]llm.ToolSpec) bool {
	switch val[0] {
	case 'n':
		return true
	case '[':
	default:
		return false
	}
	return jsonscan.Elements(val, func(elem []byte) error {
		var t llm.ToolSpec
		ok := jsonscan.Fields(elem, toolNames, func(k int, val []byte) bool {
			switch k {
			case 0:
				return jsonscan.StringField(val, &t.Name)
			case 1:
				return jsonscan.StringField(val, &t.Description)
			}
			t.Parameters = json.RawMessage(val[:len(val):len(val)])
			return true
		})
		if !ok || t.Name == "" {
			return errFallBack
		}
		*tools = append(*tools, t)
		return nil
	}) == nil
}

var toolNames = []string{"name", "description", "input_schema"}
