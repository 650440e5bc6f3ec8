package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// duplicateMembers reports every member that a scenario.json text b
// repeats — at the top level, and at any level inside the members Parse
// decodes (inside an unknown member, kept verbatim, nothing is read). A
// repeated member is ambiguous: encoding/json takes the last, while a
// rewrite of the text (WithRecorded) changes the first, so a merge leftover
// would silently disagree with itself. b must be valid JSON.
func duplicateMembers(b []byte) []string {
	w := &dupWalker{b: b, dec: json.NewDecoder(bytes.NewReader(b))}
	_ = w.value("", true) // b is valid JSON; a failure only stops the walk
	return w.problems
}

// dupWalker walks a JSON text token by token, keeping where each member
// name is so a repeated one can be named with both lines.
type dupWalker struct {
	b        []byte
	dec      *json.Decoder
	problems []string
	off      int64 // lines are counted up to off: line is the line at off
	line     int
}

// lineAt returns the line of offset off, which never decreases from one
// call to the next: counting on from the last keeps the walk linear.
func (w *dupWalker) lineAt(off int64) int {
	if w.line == 0 {
		w.line = 1
	}
	off = min(off, int64(len(w.b)))
	w.line += bytes.Count(w.b[w.off:off], []byte{'\n'})
	w.off = off
	return w.line
}

// value walks the next value; path names it ("" for the whole text), and
// top is set for the scenario object itself.
func (w *dupWalker) value(path string, top bool) error {
	t, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t {
	case json.Delim('{'):
		return w.object(path, top)
	case json.Delim('['):
		for i := 0; w.dec.More(); i++ {
			if err := w.value(path+"["+strconv.Itoa(i)+"]", false); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
	}
	return err
}

// object walks the members of an object whose '{' was just read.
func (w *dupWalker) object(path string, top bool) error {
	seen := map[string]int{}
	for w.dec.More() {
		t, err := w.dec.Token()
		if err != nil {
			return err
		}
		key := t.(string)
		line := w.lineAt(w.dec.InputOffset())
		name := key
		if !top {
			name = path + "." + key
		}
		if first, dup := seen[key]; dup {
			w.problems = append(w.problems, fmt.Sprintf("line %d: member %q is repeated (first at line %d); keep one of them", line, name, first))
		} else {
			seen[key] = line
		}
		if top && !slices.Contains(memberNames, key) {
			var skip json.RawMessage // an unknown member is kept as it is
			if err := w.dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if err := w.value(name, false); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}
