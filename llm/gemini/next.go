package gemini

import (
	"slices"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Decoded is a request read by DecodeNext, kept to read the same agent's
// next request against it: an agent sends its whole conversation on every
// call, and the next call repeats this one's contents byte for byte. A
// Decoded is not changed once returned; it is safe for concurrent use.
type Decoded struct {
	// Call is the request, as DecodeRequest reads it. Its slices and its
	// Settings are shared with the requests read against it: do not change
	// them.
	Call *Call
	// Reused is how many leading messages of Call.Messages are the
	// previous request's, the same values, read from the same bytes: all
	// of its messages, or 0 when this request was read whole.
	Reused int
	// SameRest reports whether the members but contents are the previous
	// request's, byte for byte: System, Tools and Settings are then its.
	SameRest bool

	body []byte // nil: the next request is read whole
	at   jsonscan.Spans
	msgs []session.Message // Call.Messages, with room to grow
	// What the next contents are read on from: the model message results
	// are paired with by name, and which of its calls have their result.
	lastModel int
	paired    calls
	grown     atomic.Bool // a request read against this one appended to msgs in place
	spans     [4][2]int   // room for the spans of the new contents: a local array would escape
}

// DecodeNext reads the body of an agent's generateContent (or
// streamGenerateContent) request as DecodeRequest does, against prev, the
// same agent's last request (nil for none): when the body's contents
// begin with all of prev's, byte for byte, only those after them are
// read, and the other members only when their bytes changed. Whatever
// prev is, the Call is DecodeRequest's; a body of any other shape is read
// whole, and its error is DecodeRequest's. The model is in the URL, not
// the body: nothing of it is kept.
func DecodeNext(prev *Decoded, body []byte) (*Decoded, error) {
	if prev != nil && prev.body != nil {
		if d := prev.next(body); d != nil {
			return d, nil
		}
	}
	call, c, err := decodeWhole(body)
	if err != nil {
		return nil, err
	}
	d := &Decoded{Call: call, msgs: call.Messages, lastModel: c.lastModel, paired: c.paired}
	call.Messages = slices.Clip(call.Messages)
	if at, _, ok := jsonscan.ArrayMember(body, "contents", nil, jsonscan.Spans{}, nil); ok {
		d.body, d.at = body, at
	}
	return d, nil
}

// next reads body against d, or returns nil when body does not repeat
// d's contents (or is not a shape next reads, or holds an error: the
// whole read then says which).
func (d *Decoded) next(body []byte) *Decoded {
	out := &Decoded{body: body}
	added := out.spans[:0] // the usual few new contents, in out's allocation
	at, same, ok := jsonscan.ArrayNext(body, "contents", d.body, d.at, &added)
	if !ok {
		return nil
	}
	out.Reused, out.at = len(d.msgs), at
	call := &Call{}
	if same {
		*call = *d.Call
		out.SameRest = true
	} else {
		// The other members, read as a body without contents.
		rest := slices.Concat(body[:at.Arr], []byte("[]"), body[at.End:])
		c, _, err := decodeWhole(rest)
		if err != nil {
			return nil
		}
		*call = *c
	}
	c, ok := d.readTail(body, added)
	if !ok {
		return nil
	}
	out.msgs, out.lastModel, out.paired = c.messages(), c.lastModel, c.paired
	call.Messages = slices.Clip(out.msgs)
	call.Media = llm.Merge(d.Call.Media, c.media)
	call.Responses = mergeResponses(d.Call.Responses, c.responses)
	out.Call = call
	return out
}

// readTail reads the contents of body at elems, the ones after d's, on
// from d's conversation. It reports false for a content the whole read
// refuses, and for a model content that would join d's last message (a
// model content right after model contents is the same answer): d's
// messages are not changed.
func (d *Decoded) readTail(body []byte, elems [][2]int) (*conversation, bool) {
	contents := make([]Content, len(elems))
	for k, e := range elems {
		if decodeContent(body[e[0]:e[1]], &contents[k]) != nil {
			return nil, false
		}
	}
	n := len(d.msgs)
	// Results paired by name mark calls of d's last answer: a copy.
	c := &conversation{lastModel: d.lastModel, paired: d.paired.clone()}
	// The first request read against d appends to d's messages in place:
	// a conversation grows by a content or two per call.
	c.out = slices.Clip(d.msgs)
	if d.grown.CompareAndSwap(false, true) {
		c.out = d.msgs
	}
	for k := range contents {
		if contents[k].Role == "model" && c.lastModel >= 0 && c.lastModel == len(c.out)-1 && c.lastModel < n {
			return nil, false
		}
		if c.add(d.at.Count+k, &contents[k]) != nil {
			return nil, false
		}
	}
	return c, true
}
