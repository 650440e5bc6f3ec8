package openai

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Decoded is a request read by DecodeNext, kept to read the same agent's
// next request against it: an agent sends its whole conversation on every
// call, and the next call repeats this one's messages byte for byte. A
// Decoded is not changed once returned; it is safe for concurrent use.
type Decoded struct {
	// Call is the request, as DecodeRequest reads it. Its slices are
	// shared with the requests read against it: do not change them.
	Call *Call
	// Reused is how many leading messages of Call.Messages are the
	// previous request's, the same values, read from the same bytes: all
	// of its messages, or 0 when this request was read whole.
	Reused int
	// SameRest reports whether the members but messages are the previous
	// request's, byte for byte: Model, Stream, Tools and Members are then
	// its.
	SameRest bool

	body   []byte // nil: the next request is read whole
	at     jsonscan.Spans
	msgs   []session.Message // Call.Messages, with room to grow
	system []string          // the texts of Call.System
	grown  atomic.Bool       // a request read against this one appended to msgs in place
}

// DecodeNext reads the body of an agent's POST /chat/completions as
// DecodeRequest does, against prev, the same agent's last request (nil
// for none): when the body's messages begin with all of prev's, byte for
// byte, only those after them are read, and the other members only when
// their bytes changed. Whatever prev is, the Call is DecodeRequest's; a
// body of any other shape is read whole, and its error is DecodeRequest's.
func DecodeNext(prev *Decoded, body []byte) (*Decoded, error) {
	if prev != nil && prev.body != nil {
		if d := prev.next(body); d != nil {
			return d, nil
		}
	}
	call, system, err := decodeWhole(body)
	if err != nil {
		return nil, err
	}
	d := &Decoded{Call: call, msgs: call.Messages, system: system}
	call.Messages = slices.Clip(call.Messages)
	if at, _, ok := jsonscan.ArrayMember(body, "messages", nil, jsonscan.Spans{}, nil); ok {
		d.body, d.at = body, at
	}
	return d, nil
}

// nextRead is what reading a request against the last one allocates, in
// one piece: the Decoded, its Call, the new messages' spans and the
// message each is read into.
type nextRead struct {
	d     Decoded
	call  Call
	spans [4][2]int // room for the usual few new messages
	m     Message
}

// next reads body against d, or returns nil when body does not repeat
// d's messages (or is not a shape next reads).
func (d *Decoded) next(body []byte) *Decoded {
	nr := &nextRead{}
	added := nr.spans[:0]
	at, same, ok := jsonscan.ArrayNext(body, "messages", d.body, d.at, &added)
	if !ok {
		return nil
	}
	out, call := &nr.d, &nr.call
	out.Reused, out.body, out.at = len(d.msgs), body, at
	if same {
		*call = *d.Call
		out.SameRest = true
	} else {
		// The other members, read as a body without messages.
		rest := slices.Concat(body[:at.Arr], []byte("[]"), body[at.End:])
		c, _, err := decodeWhole(rest)
		if err != nil {
			return nil
		}
		*call = *c
	}
	r := reader{before: d.msgs}
	m := &nr.m // one for the tail: r.add copies what it keeps
	for k, e := range added {
		*m = Message{}
		if decodeMessage(body[e[0]:e[1]], m) != nil || r.add(d.at.Count+k, m) != nil {
			return nil // read whole, for DecodeRequest's error
		}
	}
	*m = Message{} // nothing of the request's held by the Decoded kept for the next
	out.system, call.System = d.system, d.Call.System
	if len(r.system) > 0 {
		out.system = slices.Concat(d.system, r.system)
		call.System = strings.Join(out.system, "\n\n")
	}
	// The first request read against d appends to d's messages in place:
	// a conversation grows by a message or two per call.
	if d.grown.CompareAndSwap(false, true) {
		out.msgs = append(d.msgs, r.msgs...)
	} else {
		out.msgs = slices.Concat(d.msgs, r.msgs)
	}
	call.Messages = slices.Clip(out.msgs)
	call.Media = llm.Merge(d.Call.Media, r.media)
	out.Call = call
	return out
}
