package jsonscan

import "bytes"

// An agent sends its whole conversation on every call, so a request body
// repeats the last one's bytes and adds an element or two to one array
// member (Chat Completions' and Anthropic's messages, Gemini's contents).
// ArrayMember finds that member and ArrayNext the elements a body adds
// after the last one's; each API's reader decodes only those.

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

// ArrayNext finds body's member name against prev, a body scanned before
// (its member at prevAt): the elements body adds after all of prev's,
// appended to *added (when added is not nil), and whether everything outside the array is prev's,
// byte for byte (sameRest). It reports false for a body whose array does
// not begin with all of prev's elements, and for any shape ArrayMember
// refuses: a caller then reads the body whole.
func ArrayNext(body []byte, name string, prev []byte, prevAt Spans, added *[][2]int) (at Spans, sameRest, ok bool) {
	start := 0 // what *added held before: a second scan lists the elements again
	if added != nil {
		start = len(*added)
	}
	// The usual next body repeats prev up to its last element and after
	// its array: only the new elements are scanned.
	if bytes.HasPrefix(body, prev[:prevAt.Last]) {
		at, ok = arrayElements(body, prevAt.Last, Spans{Arr: prevAt.Arr, Last: prevAt.Last, Count: prevAt.Count}, added)
		if ok && bytes.Equal(body[at.End:], prev[prevAt.End:]) {
			return at, true, true
		}
		if added != nil {
			*added = (*added)[:start]
		}
	} else if bytes.HasPrefix(body, prev[:prevAt.Arr]) {
		// The array is where prev's is and does not begin with its
		// elements: ArrayMember would scan it all to say so.
		return at, false, false
	}
	at, repeats, ok := ArrayMember(body, name, prev, prevAt, added)
	if !ok || !repeats {
		return at, false, false
	}
	return at, bytes.Equal(body[:at.Arr], prev[:prevAt.Arr]) && bytes.Equal(body[at.End:], prev[prevAt.End:]), true
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

// ArrayFrom is ArrayNext for a body whose array repeats prev's bytes only
// up to one of prev's last elements: an agent that changed those in place
// (Anthropic's cache breakpoints, moved to the newest message). starts
// are the offsets in prev of its array's last len(starts) elements, in
// order. ArrayFrom takes the latest of them up to which body is prev,
// byte for byte, and scans body's array from there: the span of that
// element and of each after it is appended to *added, and from is its
// index in starts. It reports false when body does not repeat prev up to
// the first of starts, holds fewer elements than prev, or has a shape
// ArrayMember refuses: a caller then reads the body whole.
func ArrayFrom(body []byte, name string, prev []byte, prevAt Spans, starts []int, added *[][2]int) (at Spans, from int, sameRest, ok bool) {
	n := commonPrefix(body, prev[:prevAt.Last])
	from = len(starts) - 1
	for from >= 0 && starts[from] > n {
		from--
	}
	if from < 0 {
		return at, 0, false, false
	}
	// body is prev up to the element's start, so up to its array and
	// past the comma before the element: the scan starts there as at the
	// array's first element.
	k := len(*added)
	at, ok = arrayElements(body, starts[from], Spans{Arr: prevAt.Arr}, added)
	if !ok || len(*added)-k < len(starts)-from {
		return at, 0, false, false
	}
	at.Count += prevAt.Count - len(starts) + from
	sameRest = bytes.Equal(body[at.End:], prev[prevAt.End:])
	if !sameRest && !membersAfter(body, at.End, name) {
		return at, 0, false, false
	}
	return at, from, sameRest, true
}

// membersAfter checks the rest of the object body is, from i past the
// value of one of its members, as ArrayMember does: none of the members
// after is name, in any case or escaped, and nothing follows the object.
func membersAfter(body []byte, i int, name string) bool {
	i, ok := nextMember(body, i)
	for ok && i < len(body) && body[i] != '}' {
		end, esc, err := SkipString(body, i)
		if err != nil || esc || bytes.EqualFold(body[i+1:end-1], []byte(name)) {
			return false
		}
		if i = SkipSpace(body, end); i >= len(body) || body[i] != ':' {
			return false
		}
		if i, err = SkipMember(body, SkipSpace(body, i+1)); err != nil {
			return false
		}
		i, ok = nextMember(body, i)
	}
	return ok && i < len(body) && SkipSpace(body, i+1) == len(body)
}

// commonPrefix returns how many leading bytes a and b share: a long
// prefix compared a block at a time.
func commonPrefix(a, b []byte) int {
	n, i := min(len(a), len(b)), 0
	for _, step := range [...]int{4096, 64, 1} {
		for i+step <= n && bytes.Equal(a[i:i+step], b[i:i+step]) {
			i += step
		}
	}
	return i
}
