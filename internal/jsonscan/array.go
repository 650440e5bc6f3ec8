package jsonscan

import "bytes"

// An agent sends its whole conversation on every call, so a request body
// repeats the last one's bytes and adds an element or two to one array
// member (Chat Completions' and Anthropic's messages, Gemini's contents).
// ArrayMember and ArrayAfter find that member and the elements a body adds;
// each API's reader decodes only those.

// Spans is where an object holds the array member it was scanned for:
// offsets of the array's '[', just past its last element (just past the
// '[' when it has none) and just past its ']', and how many elements it
// has.
type Spans struct {
	Arr, Last, End, Count int
}

// elemDepth is the depth of an array member's elements: inside the object
// and the array. Skipped at it, an element passes only if encoding/json
// reads it both alone and inside the body.
const elemDepth = 2

// ArrayMember scans body, one JSON object, for its member named exactly
// name, an array. When the array begins with all of the elements of prev
// (a body scanned before, its member at prevAt; nil for none), byte for
// byte, it scans only the elements after them, appends their spans to
// *added (when added is not nil) and reports repeats. It refuses (ok
// false) a body that is not one object, the member missing, repeated or
// not an array, and a member name that is escaped or is name in other
// case, which encoding/json would match: a caller reads such a body whole.
func ArrayMember(body []byte, name string, prev []byte, prevAt Spans, added *[][2]int) (at Spans, repeats, ok bool) {
	i := SkipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return at, false, false
	}
	found := false
	for i = SkipSpace(body, i+1); i < len(body) && body[i] != '}'; {
		if body[i] != '"' {
			return at, false, false
		}
		end, esc, err := SkipString(body, i)
		if err != nil || esc {
			return at, false, false
		}
		key := body[i+1 : end-1]
		if i = SkipSpace(body, end); i >= len(body) || body[i] != ':' {
			return at, false, false
		}
		i = SkipSpace(body, i+1)
		switch {
		case string(key) == name:
			if found {
				return at, false, false
			}
			found = true
			if at, repeats, ok = arrayAt(body, i, prev, prevAt, added); !ok {
				return at, false, false
			}
			i = at.End
		case bytes.EqualFold(key, []byte(name)):
			return at, false, false
		default:
			if i, err = SkipMember(body, i); err != nil {
				return at, false, false
			}
		}
		if i, ok = nextMember(body, i); !ok {
			return at, false, false
		}
	}
	if i >= len(body) || SkipSpace(body, i+1) != len(body) {
		return at, false, false
	}
	return at, repeats, found
}

// nextMember steps past the comma after an object's member, to the next
// member's name, or stops at the object's '}'.
func nextMember(body []byte, i int) (int, bool) {
	switch i = SkipSpace(body, i); {
	case i < len(body) && body[i] == ',':
		// Another member must follow: no trailing comma.
		i = SkipSpace(body, i+1)
		return i, i < len(body) && body[i] == '"'
	case i < len(body) && body[i] == '}':
		return i, true
	}
	return i, false
}

// arrayAt scans the array at body[i], after prev's elements when it
// begins with them (repeats: the others are appended to *added).
func arrayAt(body []byte, i int, prev []byte, prevAt Spans, added *[][2]int) (at Spans, repeats, ok bool) {
	if i >= len(body) || body[i] != '[' {
		return at, false, false
	}
	at.Arr, at.Last = i, i+1
	j := i + 1
	if prev != nil {
		if p := prev[prevAt.Arr:prevAt.Last]; bytes.HasPrefix(body[i:], p) {
			repeats = true
			j = i + len(p)
			at.Last, at.Count = j, prevAt.Count
		}
	}
	if !repeats {
		added = nil
	}
	at, ok = arrayElements(body, j, at, added)
	return at, repeats && ok, ok
}

// ArrayAfter is ArrayMember for the usual next body: one that repeats
// prev's bytes up to the end of its array's last element and from the end
// of its array on, and adds elements between. Only those are scanned (and
// appended to *added): the rest is prev's, which ArrayMember read. It
// reports false for any other body.
func ArrayAfter(body, prev []byte, prevAt Spans, added *[][2]int) (Spans, bool) {
	if !bytes.HasPrefix(body, prev[:prevAt.Last]) {
		return Spans{}, false
	}
	at, ok := arrayElements(body, prevAt.Last, Spans{Arr: prevAt.Arr, Last: prevAt.Last, Count: prevAt.Count}, added)
	return at, ok && bytes.Equal(body[at.End:], prev[prevAt.End:])
}

// arrayElements scans an array's elements from body[j], after at.Count of them,
// to its ']', setting at.Last, at.Count and at.End; each element's span is
// appended to *added, when added is not nil.
func arrayElements(body []byte, j int, at Spans, added *[][2]int) (Spans, bool) {
	for {
		if j = SkipSpace(body, j); j >= len(body) {
			return at, false
		}
		if body[j] == ']' {
			at.End = j + 1
			return at, true
		}
		if at.Count > 0 {
			if body[j] != ',' {
				return at, false
			}
			j = SkipSpace(body, j+1)
		}
		e, err := skipValue(body, j, elemDepth)
		if err != nil {
			return at, false
		}
		if added != nil {
			*added = append(*added, [2]int{j, e})
		}
		at.Last, at.Count, j = e, at.Count+1, e
	}
}
