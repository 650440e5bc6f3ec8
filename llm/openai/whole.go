package openai

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
)

// fastWhole reads body, a request of the shapes agents send, into the Call
// decodeWhole makes of it with encoding/json, by hand: a session's first
// request is most of what serve reads, and encoding/json reads a body twice
// (once for the struct, once for the members). It returns false, for
// decodeWhole to read with encoding/json, on anything it does not read
// exactly as encoding/json does: a name that is escaped, not ASCII, repeated
// (a known one) or a known one in other case; a value of another kind;
// a message or tool it cannot read; text after the object. A fuzz test
// holds it to encoding/json.
func fastWhole(body []byte) (*Call, []string, bool) {
	var w whole
	if !w.scan(body) {
		return nil, nil, false
	}
	// Every member but messages, as sent, copied into one buffer: Members
	// outlives the body, which the caller may reuse.
	buf := make([]byte, 0, w.size)
	out := &Call{Members: make(map[string]json.RawMessage, len(w.members))}
	var tools []byte
	for _, m := range w.members {
		if string(m.key) == "messages" {
			continue
		}
		start := len(buf)
		buf = append(buf, m.val...)
		val := buf[start:len(buf):len(buf)]
		out.Members[m.name()] = val
		switch string(m.key) {
		case "model":
			if !jsonscan.StringField(val, &out.Model) {
				return nil, nil, false
			}
		case "stream":
			switch string(val) {
			case "true":
				out.Stream = true
			case "false", "null":
			default:
				return nil, nil, false
			}
		case "tools":
			tools = val
		}
	}
	var r reader
	if w.messages != nil && !jsonscan.IsNull(w.messages) && !r.addAll(w.messages, &w.m) {
		return nil, nil, false
	}
	out.Messages, out.System, out.Media = r.msgs, strings.Join(r.system, "\n\n"), r.media
	// The tools read from the copy: their parameters are windows of it.
	if tools != nil && !jsonscan.IsNull(tools) && !fastTools(tools, &out.Tools) {
		return nil, nil, false
	}
	return out, r.system, true
}

// whole is a request object's members, as scanned.
type whole struct {
	members  []member
	first    [8]member // room for the usual few
	messages []byte
	size     int     // of the values but messages
	m        Message // each message is read into, in turn
}

type member struct {
	key, val []byte
	known    int // in requestNames, or -1
}

// name is the member's name as a string: a known name without a copy.
func (m *member) name() string {
	if m.known >= 0 {
		return requestNames[m.known]
	}
	return string(m.key)
}

// requestNames are the names encoding/json matches with Request's fields,
// in any case.
var requestNames = [...]string{"model", "messages", "tools", "stream", "stream_options"}

// scan reads body's members, each value validated, refusing what fastWhole
// leaves to encoding/json.
func (w *whole) scan(body []byte) bool {
	w.members = w.first[:0]
	return jsonscan.Known(body, requestNames[:], func(known int, key, val []byte) bool {
		if string(key) == "messages" {
			w.messages = val
		} else {
			w.size += len(val)
		}
		w.members = append(w.members, member{key, val, known})
		return true
	})
}

// addAll reads the messages array val into r, each message read into m
// in turn; false for anything encoding/json would refuse, and for a
// message r refuses.
func (r *reader) addAll(val []byte, m *Message) bool {
	if val[0] != '[' {
		return false
	}
	n := 0
	return jsonscan.EachElement(val, func(elem []byte) bool {
		*m = Message{}
		if decodeMessage(elem, m) != nil || r.add(n, m) != nil {
			return false
		}
		n++
		return true
	})
}

// fastTools reads a request's tools array val into tools, as encoding/json
// reads []Tool: its function tools; Parameters are windows of val.
func fastTools(val []byte, tools *[]llm.ToolSpec) bool {
	if val[0] != '[' {
		return false
	}
	return jsonscan.EachElement(val, func(elem []byte) bool {
		var t llm.ToolSpec
		function, ok := fastTool(elem, &t)
		if function {
			*tools = append(*tools, t)
		}
		return ok
	})
}

// fastTool reads one tool: an object of type and function, members it
// does not know skipped as encoding/json skips them. function reports
// whether it is a function tool (see isFunction).
func fastTool(b []byte, t *llm.ToolSpec) (function, ok bool) {
	kind := ""
	ok = jsonscan.Fields(b, []string{"type", "function"}, func(k int, val []byte) bool {
		if k == 0 {
			return jsonscan.StringField(val, &kind)
		}
		if jsonscan.IsNull(val) {
			return true
		}
		return jsonscan.NamedSchema(val, functionNames, &t.Name, &t.Description, &t.Parameters)
	})
	return isFunction(kind), ok
}

// isFunction reports whether a tool of type kind is a function tool, one
// of the request's ToolSpecs. A tool of another type ("custom": a grammar
// or free text) has no function: it reaches a live model and the
// comparison in the tools setting (toolsSetting), as the Responses API's
// tools of other types do. A tool without a type (or of type null or "")
// is taken for a function, as it always was.
func isFunction(kind string) bool { return kind == "" || kind == "function" }

// functionNames are the members of a tool's function that fastTool reads.
var functionNames = []string{"name", "description", "parameters"}
