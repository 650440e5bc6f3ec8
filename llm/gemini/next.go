package gemini

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
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
	at   spans
	msgs []session.Message // Call.Messages, with room to grow
	// What the next contents are read on from: the model message results
	// are paired with by name, and which of its calls have their result.
	lastModel int
	paired    map[int]bool
	grown     atomic.Bool // a request read against this one appended to msgs in place
}

// spans is where a body holds its contents: offsets of the array's '[',
// just past its last element (past the '[' when it has none) and just
// past its ']', and how many elements it has.
type spans struct {
	arr, last, end, count int
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
	d := &Decoded{Call: call, msgs: call.Messages, lastModel: c.lastModel}
	if c.lastModel >= 0 {
		d.paired = c.paired[c.lastModel]
	}
	call.Messages = slices.Clip(call.Messages)
	if at, _, ok := scan(body, nil, nil); ok {
		d.body, d.at = body, at
	}
	return d, nil
}

// next reads body against d, or returns nil when body does not repeat
// d's contents (or is not a shape next reads, or holds an error: the
// whole read then says which).
func (d *Decoded) next(body []byte) *Decoded {
	var t tail
	at, same := d.scanAfter(body, &t)
	if !same {
		t.elems = t.elems[:0]
		var repeats, ok bool
		if at, repeats, ok = scan(body, d, &t); !ok || !repeats {
			return nil
		}
		same = bytes.Equal(body[:at.arr], d.body[:d.at.arr]) && bytes.Equal(body[at.end:], d.body[d.at.end:])
	}
	out := &Decoded{Reused: len(d.msgs), body: body, at: at}
	call := &Call{}
	if same {
		*call = *d.Call
		out.SameRest = true
	} else {
		// The other members, read as a body without contents.
		rest := slices.Concat(body[:at.arr], []byte("[]"), body[at.end:])
		c, _, err := decodeWhole(rest)
		if err != nil {
			return nil
		}
		*call = *c
	}
	c, ok := d.readTail(body, t.elems)
	if !ok {
		return nil
	}
	out.msgs, out.lastModel = c.messages(), c.lastModel
	if c.lastModel >= 0 {
		out.paired = c.paired[c.lastModel]
	}
	call.Messages = slices.Clip(out.msgs)
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
		if json.Unmarshal(body[e[0]:e[1]], &contents[k]) != nil {
			return nil, false
		}
	}
	n := len(d.msgs)
	c := &conversation{lastModel: d.lastModel, paired: map[int]map[int]bool{}}
	if d.lastModel >= 0 {
		// Results paired by name mark calls of d's last answer: a copy.
		c.paired[d.lastModel] = maps.Clone(d.paired)
	}
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
		if c.add(d.at.count+k, &contents[k]) != nil {
			return nil, false
		}
	}
	return c, true
}

// scanAfter is scan for the usual next request: body repeats d's bytes up
// to the end of its last content and after its contents, and adds
// contents between. Only the new contents are scanned: what comes before
// and after them is d's, which scan read. It reports false for any other
// body, which scan then reads.
func (d *Decoded) scanAfter(body []byte, t *tail) (at spans, ok bool) {
	if !bytes.HasPrefix(body, d.body[:d.at.last]) {
		return at, false
	}
	at = spans{arr: d.at.arr, last: d.at.last, count: d.at.count}
	at, ok = scanElems(body, at.last, at, t)
	return at, ok && bytes.Equal(body[at.end:], d.body[d.at.end:])
}

// tail lists the elements of a body's contents after those it repeats.
type tail struct{ elems [][2]int }

// scan finds the contents of body, a request object: its one member named
// exactly "contents", an array. When the array begins with all of prev's
// elements, byte for byte (repeats), it scans only the elements after
// them and lists them in t. It refuses (ok false) a body that is not an
// object, a contents member that is missing, repeated or not an array,
// and a member name that is escaped or is "contents" in other case, as
// encoding/json would match it: such a body is read whole.
func scan(body []byte, prev *Decoded, t *tail) (at spans, repeats, ok bool) {
	i := jsonscan.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return at, false, false
	}
	found := false
	i = jsonscan.SkipSpace(body, i+1)
	for i < len(body) && body[i] != '}' {
		if body[i] != '"' {
			return at, false, false
		}
		end, esc, err := jsonscan.SkipString(body, i)
		if err != nil || esc {
			return at, false, false
		}
		key := body[i+1 : end-1]
		if i = jsonscan.SkipSpace(body, end); i >= len(body) || body[i] != ':' {
			return at, false, false
		}
		i = jsonscan.SkipSpace(body, i+1)
		switch {
		case string(key) == "contents":
			if found {
				return at, false, false
			}
			found = true
			if at, repeats, ok = scanContents(body, i, prev, t); !ok {
				return at, false, false
			}
			i = at.end
		case bytes.EqualFold(key, []byte("contents")):
			return at, false, false
		default:
			if i, err = jsonscan.SkipMember(body, i); err != nil {
				return at, false, false
			}
		}
		switch i = jsonscan.SkipSpace(body, i); {
		case i < len(body) && body[i] == ',':
			// Another member must follow: no trailing comma.
			if i = jsonscan.SkipSpace(body, i+1); i >= len(body) || body[i] != '"' {
				return at, false, false
			}
		case i >= len(body) || body[i] != '}':
			return at, false, false
		}
	}
	if i >= len(body) || jsonscan.SkipSpace(body, i+1) != len(body) {
		return at, false, false
	}
	return at, repeats, found
}

// scanContents scans the contents array at body[i], after prev's
// elements when it begins with them (repeats: the others are listed in
// t).
func scanContents(body []byte, i int, prev *Decoded, t *tail) (at spans, repeats, ok bool) {
	if i >= len(body) || body[i] != '[' {
		return at, false, false
	}
	at.arr, at.last = i, i+1
	j := i + 1
	if prev != nil {
		if p := prev.body[prev.at.arr:prev.at.last]; bytes.HasPrefix(body[i:], p) {
			repeats = true
			j = i + len(p)
			at.last, at.count = j, prev.at.count
		}
	}
	if !repeats {
		t = nil
	}
	at, ok = scanElems(body, j, at, t)
	return at, repeats && ok, ok
}

// scanElems scans the elements of a contents array from body[j], after
// at.count of them, to its ']', setting at.last, at.count and at.end;
// each element is listed in t, when t is not nil.
func scanElems(body []byte, j int, at spans, t *tail) (spans, bool) {
	for {
		if j = jsonscan.SkipSpace(body, j); j >= len(body) {
			return at, false
		}
		if body[j] == ']' {
			at.end = j + 1
			return at, true
		}
		if at.count > 0 {
			if body[j] != ',' {
				return at, false
			}
			j = jsonscan.SkipSpace(body, j+1)
		}
		e, err := jsonscan.SkipMember(body, j)
		if err != nil {
			return at, false
		}
		if t != nil {
			t.elems = append(t.elems, [2]int{j, e})
		}
		at.last, at.count, j = e, at.count+1, e
	}
}
