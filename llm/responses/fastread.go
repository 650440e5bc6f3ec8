package responses

import (
	"encoding/json"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// fastRequest is a request body as fastRead reads it: what build makes a
// Decoded of.
type fastRequest struct {
	in Request // its Input and Tools unset: items and tools hold them
	// items are the input's; their content and output are windows of the
	// body, read by the builder and not kept.
	items    []Item
	tools    []llm.ToolSpec
	settings map[string]json.RawMessage
	pooled   *[]Item // where items came from
}

// itemsPool holds the slices fastRead reads inputs into: the items are
// read, built and dropped, and a long input's slice is the most of what
// reading a request whole allocates.
var itemsPool = sync.Pool{New: func() any { return new([]Item) }}

// release gives r's items back to the pool: nothing may read them after.
func (r *fastRequest) release() {
	if r.pooled == nil || cap(r.items) > 4096 { // a rare long input's is not kept
		return
	}
	clear(r.items) // no window of the body outlives it
	*r.pooled = r.items[:0]
	itemsPool.Put(r.pooled)
	r.items, r.pooled = nil, nil // a second release puts nothing back twice
}

// fastRead reads body, a request of the shapes agents send, as decodeStd
// reads it with encoding/json, by hand: a session's first request, and
// every one DecodeNext cannot read against the last, is read whole, and
// encoding/json reads the body twice and every item again. It returns
// false, for decodeStd to read, on anything it does not read exactly as
// encoding/json does: a name that is escaped, not ASCII, or a transport
// member's repeated or in other case; a value of another kind; an item or
// tool it cannot read; a conversation; text after the object. A fuzz test
// holds it to decodeStd.
func fastRead(body []byte) (*fastRequest, bool) {
	var m members
	if !m.scan(body) {
		return nil, false
	}
	r := &fastRequest{pooled: itemsPool.Get().(*[]Item)}
	r.items = (*r.pooled)[:0]
	if !m.transport(&r.in) || !fastInput(m.known[tInput], &r.items) {
		r.release()
		return nil, false
	}
	tools := m.known[tTools]
	if tools != nil && jsonscan.IsNull(tools) {
		tools = nil
	}
	// The settings and the tools, copied into one buffer: the Decoded
	// outlives the body, which the caller of Decode may reuse.
	buf := make([]byte, 0, m.size+len(tools))
	r.settings = make(map[string]json.RawMessage, len(m.others)+1)
	for _, o := range m.others {
		r.settings[string(o.key)] = appendValue(&buf, o.val) // the last of a name counts, as in a map
	}
	if tools != nil {
		tools = appendValue(&buf, tools) // the specs' parameters share its bytes with Settings["tools"]
		extra, ok := fastTools(tools, &r.tools)
		if !ok {
			r.release()
			return nil, false
		}
		if extra {
			r.settings["tools"] = tools
		}
	}
	return r, true
}

// appendValue appends val to *buf, which has room for it, and returns the
// copy.
func appendValue(buf *[]byte, val []byte) json.RawMessage {
	start := len(*buf)
	*buf = append(*buf, val...)
	return (*buf)[start:len(*buf):len(*buf)]
}

// members are a request object's members as scanned: the transport's by
// their index in transport, the others (the settings) in order.
type members struct {
	known  [len(transport)][]byte
	others []member
	first  [4]member // room for the usual few settings
	size   int       // of the others' values
}

type member struct{ key, val []byte }

// scan reads body's members, each value validated, refusing what fastRead
// leaves to encoding/json.
func (m *members) scan(body []byte) bool {
	m.others = m.first[:0]
	return jsonscan.Known(body, transport[:], func(k int, key, val []byte) bool {
		if k >= 0 {
			m.known[k] = val
			return true
		}
		m.others = append(m.others, member{key, val})
		m.size += len(val)
		return true
	})
}

// transport reads the transport members but input and tools into in as
// encoding/json does; false for a value of another kind, and for a
// conversation, which decodeStd refuses.
func (m *members) transport(in *Request) bool {
	k := &m.known
	return field(k[tModel], &in.Model, jsonscan.StringField) &&
		field(k[tInstructions], &in.Instructions, jsonscan.StringField) &&
		field(k[tStream], &in.Stream, jsonscan.BoolField) &&
		(k[tStore] == nil || jsonscan.PtrField(k[tStore], &in.Store, jsonscan.BoolField)) &&
		field(k[tPrevious], &in.PreviousResponseID, jsonscan.StringField) &&
		(k[tConversation] == nil || jsonscan.IsNull(k[tConversation]))
}

// field reads val, a member's value or nil when it is missing, into dst.
func field[T any](val []byte, dst *T, read func([]byte, *T) bool) bool {
	return val == nil || read(val, dst)
}

// fastInput reads the input member val (nil when missing) as inputItems
// does; false for anything inputItems refuses or fastItem cannot read.
func fastInput(val []byte, items *[]Item) bool {
	switch {
	case val == nil || jsonscan.IsNull(val):
		return true
	case val[0] == '"':
		*items = append((*items)[:0], Item{Type: ItemMessage, Role: session.RoleUser, Content: jsonscan.Window(val)}) // in the pool's slice
		return true
	case val[0] != '[':
		return false
	}
	return jsonscan.EachElement(val, func(elem []byte) bool {
		*items = append(*items, Item{})
		if !fastItem(elem, &(*items)[len(*items)-1]) {
			return false
		}
		return true
	})
}

// fastTools reads a request's tools array val as decodeTools does: its
// function tools, Parameters windows of val, and whether it holds more
// than they say. It returns false for what decodeTools refuses, and for a
// tool it cannot read.
func fastTools(val []byte, specs *[]llm.ToolSpec) (extra, ok bool) {
	if val[0] != '[' {
		return false, false
	}
	ok = jsonscan.EachElement(val, func(elem []byte) bool {
		if jsonscan.IsNull(elem) { // a map of none: a tool of no type
			extra = true
			return true
		}
		spec, fn, more, ok := fastTool(elem)
		if !ok {
			return false
		}
		extra = extra || more
		if fn {
			*specs = append(*specs, spec)
		}
		return true
	})
	return extra, ok
}

// toolNames are the members of a function tool that decodeTools reads.
var toolNames = [...]string{"type", "name", "description", "parameters"}

// fastTool reads one tool object as decodeTools reads it, a map: names
// matched exactly, one of toolNames repeated refused (the map keeps the
// last). fn reports a function tool, spec; extra a tool of another type,
// or a member decodeTools does not read.
func fastTool(b []byte) (spec llm.ToolSpec, fn, extra, ok bool) {
	var vals [len(toolNames)][]byte
	if !jsonscan.EachMember(b, func(key, val []byte) bool {
		for k, name := range toolNames {
			if string(key) == name {
				if vals[k] != nil {
					return false
				}
				vals[k] = val
				return true
			}
		}
		extra = true
		return true
	}) {
		return spec, false, false, false
	}
	var typ string
	if vals[0] == nil || !jsonscan.StringField(vals[0], &typ) || typ != "function" {
		return spec, false, true, true
	}
	// A name must be a string, not empty; a description a string or null.
	if vals[1] == nil || vals[1][0] != '"' || !jsonscan.StringField(vals[1], &spec.Name) || spec.Name == "" ||
		vals[2] != nil && !jsonscan.StringField(vals[2], &spec.Description) {
		return spec, false, false, false
	}
	if vals[3] != nil {
		spec.Parameters = jsonscan.Window(vals[3])
	}
	return spec, true, extra, true
}
