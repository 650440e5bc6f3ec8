package anthropic

import (
	"encoding/json"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/session"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Decoded is a request read by DecodeNext, kept to read the same agent's
// next request against it: an agent sends its whole conversation on every
// call, and the next call repeats this one's messages byte for byte. A
// Decoded is not changed once returned; it is safe for concurrent use.
type Decoded struct {
	// Call is the request, as DecodeRequest reads it. Its slices and the
	// values of its Members are shared with the requests read against it,
	// and Members["messages"] may be a window of the body: change neither.
	Call *Call
	// Reused is how many leading messages of Call.Messages are the
	// previous request's, the same values, read from the same bytes: all
	// of its messages, or 0 when this request was read whole.
	Reused int
	// SameRest reports whether the members but messages are the previous
	// request's, byte for byte: Model, System, Tools, Stream and every
	// member of Members but messages are then its.
	SameRest bool

	body  []byte // nil: the next request is read whole
	at    jsonscan.Spans
	msgs  []session.Message // Call.Messages, with room to grow
	grown atomic.Bool       // a request read against this one appended to msgs in place
	spans [4][2]int         // room for the spans of the new messages: a local array would escape
	// marks is Call.Cache.Marks with room to grow, as msgs is Call.Messages.
	marks      []Mark
	marksGrown atomic.Bool
}

// DecodeNext reads the body of an agent's POST /v1/messages as
// DecodeRequest does, against prev, the same agent's last request (nil for
// none): when the body's messages begin with all of prev's, byte for
// byte, only those after them are read, and the other members only when
// their bytes changed. Whatever prev is, the Call is DecodeRequest's; a
// body of any other shape is read whole, and its error is DecodeRequest's.
func DecodeNext(prev *Decoded, body []byte) (*Decoded, error) {
	if prev != nil && prev.body != nil {
		if d := prev.next(body); d != nil {
			return d, nil
		}
	}
	call, err := DecodeRequest(body)
	if err != nil {
		return nil, err
	}
	d := &Decoded{Call: call, msgs: call.Messages}
	call.Messages = slices.Clip(call.Messages)
	if call.Cache != nil {
		d.marks = call.Cache.Marks
		call.Cache.Marks = slices.Clip(call.Cache.Marks)
	}
	if at, _, ok := jsonscan.ArrayMember(body, "messages", nil, jsonscan.Spans{}, nil); ok {
		d.body, d.at = body, at
	}
	return d, nil
}

// next reads body against d, or returns nil when body does not repeat d's
// messages (or is not a shape next reads, or holds an error, which
// DecodeRequest then names).
func (d *Decoded) next(body []byte) *Decoded {
	out := &Decoded{body: body}
	added := out.spans[:0] // the usual few new messages, in out's allocation
	at, same, ok := jsonscan.ArrayNext(body, "messages", d.body, d.at, &added)
	if !ok {
		return nil
	}
	out.Reused, out.SameRest, out.at = len(d.msgs), same, at
	call := new(Call)
	if same {
		*call = *d.Call
		call.Members = maps.Clone(d.Call.Members)
	} else {
		// The other members, read as a body without messages: none of
		// them depends on the conversation.
		rest := slices.Concat(body[:at.Arr], []byte("[]"), body[at.End:])
		c, err := DecodeRequest(rest)
		if err != nil {
			return nil
		}
		*call = *c
	}
	// The member as encoding/json holds it: the array's bytes, without
	// the space around them. A window, not a copy: the copy would cost as
	// much as the conversation is long.
	call.Members["messages"] = json.RawMessage(body[at.Arr:at.End:at.End])
	add, marks, ok := d.decodeTail(body, added)
	if !ok {
		return nil
	}
	// The repeated messages are d's, byte for byte: their breakpoints too,
	// after which the new ones go, in place as the messages do.
	out.marks = d.marks
	if len(marks) > 0 {
		if d.marksGrown.CompareAndSwap(false, true) {
			out.marks = append(d.marks, marks...)
		} else {
			out.marks = slices.Concat(d.marks, marks)
		}
	}
	call.Cache = call.Cache.withMarks(slices.Clip(out.marks))
	// The first request read against d appends to d's messages in place:
	// a conversation grows by a message or two per call.
	if d.grown.CompareAndSwap(false, true) {
		out.msgs = append(d.msgs, add...)
	} else {
		out.msgs = slices.Concat(d.msgs, add)
	}
	call.Messages = slices.Clip(out.msgs)
	out.Call = call
	return out
}

// decodeTail reads the messages after d's, the elements of body at elems,
// as DecodeRequest reads them after d's: a tool result takes the name of
// the latest tool_use before it with its id, in these messages or in d's.
// It returns them with their breakpoints, or false for anything
// DecodeRequest would refuse.
func (d *Decoded) decodeTail(body []byte, elems [][2]int) ([]session.Message, []Mark, bool) {
	var add []session.Message
	var marks []Mark
	names := map[string]string{} // DecodeRequest's names, for the ids these messages use
	for _, e := range elems {
		elem := body[e[0]:e[1]]
		var m Message
		if decodeElem(elem, &m) != nil {
			return nil, nil, false
		}
		if m.Role == session.RoleUser {
			for _, b := range m.Content {
				if _, ok := names[b.ToolUseID]; b.Type == TypeToolResult && !ok {
					names[b.ToolUseID], _ = session.LatestCallName(d.msgs, b.ToolUseID)
				}
			}
		}
		msgs, err := decodeMessage(&m, names, len(d.msgs)+len(add), &marks)
		if err != nil {
			return nil, nil, false
		}
		add = append(add, msgs...)
	}
	return add, marks, true
}
