package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// duplicateMembers reports every member that a scenario.json text b
// repeats — at the top level, and at any level inside the members Parse
// decodes (inside an unknown member, kept verbatim, nothing is read). A
// repeated member is ambiguous: encoding/json takes the last, while a
// rewrite of the text (WithRecorded) changes the first, so a merge leftover
// would silently disagree with itself. b must be valid JSON.
func duplicateMembers(b []byte) []string {
	w := &dupWalker{b: b}
	_, _ = w.value(jsonscan.SkipSpace(b, 0), true) // b is valid JSON; a failure only stops the walk
	return w.problems
}

// dupWalker walks a JSON text by offsets, keeping where each member name
// is so a repeated one can be named with both lines.
type dupWalker struct {
	b        []byte
	problems []string
	// path is where the walk is: a member's name or an element's index
	// per level, spelled out only for a problem (name), so a walk that
	// finds none builds no names.
	path []pathStep
	off  int // lines are counted up to off: line is the line at off
	line int
}

var errBroken = errors.New("broken JSON")

// lineAt returns the line of offset off, which never decreases from one
// call to the next: counting on from the last keeps the walk linear.
func (w *dupWalker) lineAt(off int) int {
	if w.line == 0 {
		w.line = 1
	}
	off = min(off, len(w.b))
	w.line += bytes.Count(w.b[w.off:off], []byte{'\n'})
	w.off = off
	return w.line
}

// at reports whether the text continues with c at i.
func (w *dupWalker) at(i int, c byte) bool { return i < len(w.b) && w.b[i] == c }

// pathStep is one level of a dupWalker's path.
type pathStep struct {
	key   []byte // the member's name, decoded
	index int    // the element's index, when elem
	elem  bool
}

// name spells out the walk's path: "agent.tools[0].name".
func (w *dupWalker) name() string {
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

// value walks the value that starts at i and returns where it ends; the
// walker's path names it (empty for the whole text), and top is set for
// the scenario object itself.
func (w *dupWalker) value(i int, top bool) (int, error) {
	switch {
	case w.at(i, '{'):
		return w.object(i, top)
	case w.at(i, '['):
		i = jsonscan.SkipSpace(w.b, i+1)
		if w.at(i, ']') {
			return i + 1, nil
		}
		for n := 0; ; n++ {
			w.path = append(w.path, pathStep{index: n, elem: true})
			end, err := w.value(i, false)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return end, err
			}
			switch i = jsonscan.SkipSpace(w.b, end); {
			case w.at(i, ','):
				i = jsonscan.SkipSpace(w.b, i+1)
			case w.at(i, ']'):
				return i + 1, nil
			default:
				return i, errBroken
			}
		}
	}
	return jsonscan.SkipValue(w.b, i)
}

// object walks the members of the object whose '{' is at i.
func (w *dupWalker) object(i int, top bool) (int, error) {
	var seen [][]byte // the keys so far, decoded, and their lines
	var lines []int
	i = jsonscan.SkipSpace(w.b, i+1)
	if w.at(i, '}') {
		return i + 1, nil
	}
	for {
		if !w.at(i, '"') {
			return i, errBroken
		}
		kend, esc, err := jsonscan.SkipString(w.b, i)
		if err != nil {
			return i, err
		}
		key := w.b[i+1 : kend-1]
		if esc || !utf8.Valid(key) {
			key = []byte(jsonscan.Key(key, esc))
		}
		line := w.lineAt(kend)
		w.path = append(w.path, pathStep{key: key})
		if k := slices.IndexFunc(seen, func(s []byte) bool { return bytes.Equal(s, key) }); k >= 0 {
			w.problems = append(w.problems, fmt.Sprintf("line %d: member %q is repeated (first at line %d); keep one of them", line, w.name(), lines[k]))
		} else {
			seen, lines = append(seen, key), append(lines, line)
		}
		if i = jsonscan.SkipSpace(w.b, kend); !w.at(i, ':') {
			return i, errBroken
		}
		i = jsonscan.SkipSpace(w.b, i+1)
		var end int
		if top && !slices.ContainsFunc(memberNames, func(n string) bool { return n == string(key) }) {
			end, err = jsonscan.SkipValue(w.b, i) // an unknown member is kept as it is
		} else {
			end, err = w.value(i, false)
		}
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return end, err
		}
		switch i = jsonscan.SkipSpace(w.b, end); {
		case w.at(i, ','):
			i = jsonscan.SkipSpace(w.b, i+1)
		case w.at(i, '}'):
			return i + 1, nil
		default:
			return i, errBroken
		}
	}
}
