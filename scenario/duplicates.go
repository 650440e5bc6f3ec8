package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"

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
	_, _ = w.value(jsonscan.SkipSpace(b, 0), "", true) // b is valid JSON; a failure only stops the walk
	return w.problems
}

// dupWalker walks a JSON text by offsets, keeping where each member name
// is so a repeated one can be named with both lines.
type dupWalker struct {
	b        []byte
	problems []string
	off      int // lines are counted up to off: line is the line at off
	line     int
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

// value walks the value that starts at i and returns where it ends; path
// names it ("" for the whole text), and top is set for the scenario object
// itself.
func (w *dupWalker) value(i int, path string, top bool) (int, error) {
	switch {
	case w.at(i, '{'):
		return w.object(i, path, top)
	case w.at(i, '['):
		i = jsonscan.SkipSpace(w.b, i+1)
		if w.at(i, ']') {
			return i + 1, nil
		}
		for n := 0; ; n++ {
			end, err := w.value(i, path+"["+strconv.Itoa(n)+"]", false)
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
func (w *dupWalker) object(i int, path string, top bool) (int, error) {
	var seen []string // the keys so far, and their lines
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
		key := jsonscan.Key(w.b[i+1:kend-1], esc)
		line := w.lineAt(kend)
		name := key
		if !top {
			name = path + "." + key
		}
		if k := slices.Index(seen, key); k >= 0 {
			w.problems = append(w.problems, fmt.Sprintf("line %d: member %q is repeated (first at line %d); keep one of them", line, name, lines[k]))
		} else {
			seen, lines = append(seen, key), append(lines, line)
		}
		if i = jsonscan.SkipSpace(w.b, kend); !w.at(i, ':') {
			return i, errBroken
		}
		i = jsonscan.SkipSpace(w.b, i+1)
		var end int
		if top && !slices.Contains(memberNames, key) {
			end, err = jsonscan.SkipValue(w.b, i) // an unknown member is kept as it is
		} else {
			end, err = w.value(i, name, false)
		}
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
