package jsonscan

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Repeated reports every member that an object of the JSON text b repeats,
// at any depth, one problem per repeat: `line 5: member "agent.tools[0].name"
// is repeated (first at line 3); keep one of them`. A repeated member is
// ambiguous in a hand-edited file: encoding/json keeps the last value, so a
// second "answers" or a merge leftover silently replaces the first. Names
// are compared decoded ("\u006b" repeats "k"), as encoding/json compares
// them.
//
// inside, when not nil, is asked of each member of the top-level object
// whether to look inside its value (a member kept verbatim is not read, so
// its repeats are not the file's to refuse); a repeated top-level member is
// reported either way. b must be valid JSON: on a broken text the walk stops
// where it breaks. A text that repeats nothing costs no allocation; past
// 20 repeats, one last problem counts the rest.
func Repeated(b []byte, inside func(key []byte) bool) []string {
	w := &repeatWalker{b: b, inside: inside}
	if _, _ = w.value(SkipSpace(b, 0), true); w.repeats == 0 { // a failure only stops the walk
		return nil
	}
	// Walk again, naming: the path and the lines cost nothing above.
	w = &repeatWalker{b: b, inside: inside, naming: true}
	_, _ = w.value(SkipSpace(b, 0), true)
	if more := w.repeats - len(w.problems); more > 0 {
		w.problems = append(w.problems, fmt.Sprintf("and %d more repeated members; keep one of each", more))
	}
	return w.problems
}

// maxRepeats is how many repeats Repeated spells out: a text made to
// repeat a deep member a million times gets a message of a few lines.
const maxRepeats = 20

// repeatWalker walks a JSON text by offsets for Repeated. A first walk
// only counts the repeats; only a text that has some is walked again,
// naming: keeping the path and counting lines, to spell out each problem.
type repeatWalker struct {
	b        []byte
	inside   func(key []byte) bool
	repeats  int
	naming   bool
	problems []string
	path     []pathStep // where the walk is, when naming
	off      int        // lines are counted up to off, when naming
	line     int        // the line at off
}

// pathStep is one level of a naming walk's path.
type pathStep struct {
	key   []byte // the member's name, decoded
	index int    // the element's index, when elem
	elem  bool
}

// push enters the level s, when naming.
func (w *repeatWalker) push(s pathStep) {
	if w.naming {
		w.path = append(w.path, s)
	}
}

// pop leaves the level push entered last.
func (w *repeatWalker) pop() {
	if w.naming {
		w.path = w.path[:len(w.path)-1]
	}
}

// name spells out the walk's path: "agent.tools[0].name".
func (w *repeatWalker) name() string {
	var b []byte
	for i, s := range w.path {
		switch {
		case s.elem:
			b = append(strconv.AppendInt(append(b, '['), int64(s.index), 10), ']')
		case i > 0:
			b = append(append(b, '.'), s.key...)
		default:
			b = append(b, s.key...)
		}
	}
	return string(b)
}

// lineAt returns the line of offset off, which never decreases from one
// call to the next: counting on from the last keeps the walk linear.
func (w *repeatWalker) lineAt(off int) int {
	if w.line == 0 {
		w.line = 1
	}
	w.line += bytes.Count(w.b[w.off:off], []byte{'\n'})
	w.off = off
	return w.line
}

// at reports whether the text continues with c at i.
func (w *repeatWalker) at(i int, c byte) bool { return i < len(w.b) && w.b[i] == c }

// value walks the value that starts at i and returns where it ends; top is
// set for the whole text.
func (w *repeatWalker) value(i int, top bool) (int, error) {
	switch {
	case w.at(i, '{'):
		return w.object(i, top)
	case w.at(i, '['):
		return w.array(i)
	}
	return SkipValue(w.b, i)
}

// array walks the elements of the array whose '[' is at i.
func (w *repeatWalker) array(i int) (int, error) {
	i = SkipSpace(w.b, i+1)
	if w.at(i, ']') {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		w.push(pathStep{index: n, elem: true})
		end, err := w.value(i, false)
		w.pop()
		if err != nil {
			return end, err
		}
		var done bool
		if i, done, err = w.next(end, ']'); done || err != nil {
			return i, err
		}
	}
}

// next reads what follows a value that ends at end inside an array or an
// object closed by closer: a ',' and the space after it (i is where the
// next value or member starts), or closer (done, i is past it).
func (w *repeatWalker) next(end int, closer byte) (i int, done bool, err error) {
	switch i = SkipSpace(w.b, end); {
	case w.at(i, ','):
		return SkipSpace(w.b, i+1), false, nil
	case w.at(i, closer):
		return i + 1, true, nil
	default:
		return i, false, errAt(i, "expected ',' or '%c'", closer)
	}
}

// seenMember is a member name an object gave, decoded, and its line
// (when naming).
type seenMember struct {
	key  []byte
	line int
}

// object walks the members of the object whose '{' is at i.
func (w *repeatWalker) object(i int, top bool) (int, error) {
	var room [16]seenMember // most objects: no allocation to remember them
	seen, index := room[:0], map[string]int(nil)
	i = SkipSpace(w.b, i+1)
	if w.at(i, '}') {
		return i + 1, nil
	}
	for {
		kend, key, err := w.key(i)
		if err != nil {
			return i, err
		}
		line := 0
		if w.naming {
			line = w.lineAt(i)
		}
		w.push(pathStep{key: key})
		if first, again := seenAt(seen, index, key); again {
			w.repeated(line, first)
		} else {
			seen, index = remember(seen, index, key, line)
		}
		if i = SkipSpace(w.b, kend); !w.at(i, ':') {
			return i, errAt(i, "expected ':'")
		}
		i = SkipSpace(w.b, i+1)
		var end int
		if top && w.inside != nil && !w.inside(key) {
			end, err = SkipValue(w.b, i)
		} else {
			end, err = w.value(i, false)
		}
		w.pop()
		if err != nil {
			return end, err
		}
		var done bool
		if i, done, err = w.next(end, '}'); done || err != nil {
			return i, err
		}
	}
}

// repeated notes a repeat of the member the path ends at, on line, whose
// first is on line first (both 0 unless naming).
func (w *repeatWalker) repeated(line, first int) {
	w.repeats++
	if w.naming && len(w.problems) < maxRepeats {
		w.problems = append(w.problems, fmt.Sprintf("line %d: member %q is repeated (first at line %d); keep one of them", line, w.name(), first))
	}
}

// key reads the member name whose opening quote is at i: where it ends,
// and the name decoded (the text itself when it holds no escape).
func (w *repeatWalker) key(i int) (end int, key []byte, err error) {
	if !w.at(i, '"') {
		return i, nil, errAt(i, "expected a member name")
	}
	end, esc, err := SkipString(w.b, i)
	if err != nil {
		return i, nil, err
	}
	key = w.b[i+1 : end-1]
	if esc || !utf8.Valid(key) {
		key = []byte(Key(key, esc))
	}
	return end, key, nil
}

// manyMembers is how many names of an object are compared one by one;
// past it they are indexed, so a large object takes linear time.
const manyMembers = 32

// seenAt returns the line where an object gave key before, if it did: seen holds
// the names it gave so far, and index them too once they are many.
func seenAt(seen []seenMember, index map[string]int, key []byte) (first int, again bool) {
	if index != nil {
		first, again = index[string(key)]
		return first, again
	}
	for _, m := range seen {
		if bytes.Equal(m.key, key) {
			return m.line, true
		}
	}
	return 0, false
}

// remember adds key, given on line, to seen and index.
func remember(seen []seenMember, index map[string]int, key []byte, line int) ([]seenMember, map[string]int) {
	if index != nil {
		index[string(key)] = line
		return seen, index
	}
	if seen = append(seen, seenMember{key, line}); len(seen) > manyMembers {
		index = make(map[string]int, 2*len(seen))
		for _, m := range seen {
			index[string(m.key)] = m.line
		}
	}
	return seen, index
}
