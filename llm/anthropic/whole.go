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
	var m members
	if !jsonscan.Known(body, requestNames[:], m.add) {
		return nil, false
	}
	// Every member as sent, copied into one buffer, as encoding/json
	// copies each: the Call outlives the body, which the caller may reuse.
	// The messages and tools are read from the copy, their inputs and
	// schemas windows of it (a tool's schema shares its bytes with
	// Members["tools"]).
	buf := make([]byte, 0, m.size)
	call := &Call{Members: make(map[string]json.RawMessage, len(m.all))}
	var known [len(requestNames)][]byte
	for _, mb := range m.all {
		start := len(buf)
		buf = append(buf, mb.val...)
		val := buf[start:len(buf):len(buf)]
		if mb.known < 0 {
			call.Members[string(mb.key)] = val
			continue
		}
		call.Members[requestNames[mb.known]] = val // the name without a copy
		known[mb.known] = val
	}
	if !readKnown(call, &known) {
		return nil, false
	}
	return call, true
}

// members are a request's members as scanned, and the size of their
// values.
type members struct {
	all   []member
	first [8]member // room for the usual few
	size  int
}

type member struct {
	key, val []byte
	known    int // in requestNames, or -1
}

func (m *members) add(k int, key, val []byte) bool {
	if m.all == nil {
		m.all = m.first[:0]
	}
	m.all = append(m.all, member{key, val, k})
	m.size += len(val)
	return true
}

// readKnown reads the values of requestNames (nil: not sent) into call.
func readKnown(call *Call, known *[len(requestNames)][]byte) bool {
	model, system, messages, tools, stream := known[0], known[1], known[2], known[3], known[4]
	if model != nil && !jsonscan.StringField(model, &call.Model) || stream != nil && !jsonscan.BoolField(stream, &call.Stream) {
		return false
	}
	var sys Content
	var err error
	if system != nil && !fastContent(system, &sys) {
		return false
	}
	if call.System, err = systemText(sys); err != nil {
		return false
	}
	var marks []Mark
	var toolCache []json.RawMessage
	if messages != nil && !fastMessages(messages, call, &marks) || tools != nil && !fastTools(tools, &call.Tools, &toolCache) {
		return false
	}
	call.Cache = newCache(sys, toolCache, marks)
	return true
}

// fastMessages reads the messages array val into call, as decodeStd reads
// them: each message as json.Unmarshal would (decodeElem), a tool result
// named after the tool_use before it.
func fastMessages(val []byte, call *Call, marks *[]Mark) bool {
	if jsonscan.IsNull(val) {
		return true
	}
	names := map[string]string{}
	return jsonscan.EachElement(val, func(elem []byte) bool {
		var m Message
		if decodeElem(elem, &m) != nil {
			return false
		}
		msgs, err := decodeMessage(&m, names, len(call.Messages), marks, &call.Media)
		if err != nil {
			return false
		}
		call.Messages = append(call.Messages, msgs...)
		return true
	})
}

// fastTools reads the tools array val as decodeStd does: objects of a
// name, a description and an input_schema, each named, and a
// cache_control, kept in cache (see markTool).
func fastTools(val []byte, tools *[]llm.ToolSpec, cache *[]json.RawMessage) bool {
	if jsonscan.IsNull(val) {
		return true
	}
	var marked []int // the tools with a cache_control, and theirs
	var ccs []json.RawMessage
	ok := jsonscan.EachElement(val, func(elem []byte) bool {
		var t llm.ToolSpec
		var cc json.RawMessage
		if !jsonscan.Fields(elem, toolNames, func(k int, val []byte) bool {
			switch k {
			case 0:
				return jsonscan.StringField(val, &t.Name)
			case 1:
				return jsonscan.StringField(val, &t.Description)
			case 2:
				t.Parameters = jsonscan.Window(val)
			default:
				cc = jsonscan.Window(val)
			}
			return true
		}) || t.Name == "" {
			return false
		}
		if cc != nil {
			marked, ccs = append(marked, len(*tools)), append(ccs, cc)
		}
		*tools = append(*tools, t)
		return true
	})
	for i, at := range marked {
		*cache = markTool(*cache, at, len(*tools), ccs[i])
	}
	return ok
}

var toolNames = []string{"name", "description", "input_schema", "cache_control"}
