package anthropic

import (
	"bytes"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// spans is where a body holds its messages: offsets of the array's '[',
// just past its last element (past the '[' when it has none) and just
// past its ']', and how many elements it has.
type spans struct {
	arr, last, end, count int
}

// tail lists the elements of a body's messages after those it repeats.
type tail struct {
	elems [][2]int
	first [4][2]int // room for the usual few, without an allocation
}

// scanAfter is scan for the usual next request: body repeats d's bytes up
// to the end of its last message and after its messages, and adds
// messages between. Only the new messages are scanned: what comes before
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

// scan finds the messages of body, a request object: its one member named
// exactly "messages", an array. When the array begins with all of prev's
// elements, byte for byte (repeats), it scans only the elements after them
// and lists them in t. It refuses (ok false) a body that is not an
// object, a messages member that is missing, repeated or not an array,
// and a member name that is escaped or is "messages" in other case, as
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
		case string(key) == "messages":
			if found {
				return at, false, false
			}
			found = true
			if at, repeats, ok = scanMessages(body, i, prev, t); !ok {
				return at, false, false
			}
			i = at.end
		case bytes.EqualFold(key, []byte("messages")):
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

// scanMessages scans the messages array at body[i], after prev's elements
// when it begins with them (repeats: the others are listed in t).
func scanMessages(body []byte, i int, prev *Decoded, t *tail) (at spans, repeats, ok bool) {
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

// scanElems scans the elements of a messages array from body[j], after
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
