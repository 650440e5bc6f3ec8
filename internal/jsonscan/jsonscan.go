// Package jsonscan is a small validating JSON scanner for one complete JSON
// text held in memory. It exists because the session log is read line by
// line at decode speed: the reader needs the spans of an object's top-level
// members (so unknown members survive verbatim) without building a tree.
package jsonscan

import (
	"errors"
	"fmt"
	"strconv"
)

// MaxDepth bounds nesting so hostile input cannot exhaust the stack.
const MaxDepth = 10000

// SyntaxError reports malformed JSON at a byte offset within the scanned text.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error describes the problem and its 1-based byte position.
func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset+1) }

func errAt(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// SkipSpace returns the index of the first non-whitespace byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Describe names the byte at i for an error message ("end of line" past the end).
func Describe(b []byte, i int) string {
	if i >= len(b) {
		return "end of line"
	}
	c := b[i]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// SkipValue validates the JSON value starting at b[i] (no leading space) and
// returns the index just past it.
func SkipValue(b []byte, i int) (int, error) { return skipValue(b, i, 0) }

// SkipMember is SkipValue for a value that will be written as a member of a
// top-level object (a log line): its nesting counts one level more, so a
// value SkipMember accepts is accepted again inside its line.
func SkipMember(b []byte, i int) (int, error) { return skipValue(b, i, 1) }

func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, errAt(i, "unexpected end of line, expected a value")
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := SkipString(b, i)
		return end, err
	case c == '{':
		return skipObject(b, i, depth+1)
	case c == '[':
		return skipArray(b, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	default:
		return i, errAt(i, "unexpected %s, expected a value", Describe(b, i))
	}
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, errAt(i, "invalid literal, expected %s", lit)
	}
	return i + len(lit), nil
}

// SkipString validates the string token at b[i] (which must be '"') and
// returns the index past its closing quote and whether it holds escapes.
func SkipString(b []byte, i int) (end int, escaped bool, err error) {
	start := i
	i++
	for i < len(b) {
		// Skip the plain run at table speed; the switch sees only the
		// bytes that end or interrupt it.
		for i+4 <= len(b) && plain[b[i]] && plain[b[i+1]] && plain[b[i+2]] && plain[b[i+3]] {
			i += 4 // four at a time: half the loop tests on long text
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, errAt(i, "unterminated escape in string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex4(b[i+2:i+6]) {
					return i, escaped, errAt(i, "invalid \\u escape in string")
				}
				i += 6
			default:
				return i, escaped, errAt(i, "invalid escape %s in string", Describe(b, i+1))
			}
		case c < 0x20:
			return i, escaped, errAt(i, "control character in string")
		default:
			i++
		}
	}
	return start, escaped, errAt(start, "unterminated string")
}

// plain marks the bytes that may stand for themselves inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex4(h []byte) bool {
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return start, errAt(start, "invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return start, errAt(start, "invalid number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return start, errAt(start, "invalid number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i, nil
}

func skipArray(b []byte, i, depth int) (int, error) {
	if depth > MaxDepth {
		return i, errAt(i, "nesting deeper than %d", MaxDepth)
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = skipValue(b, i, depth); err != nil {
			return i, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, errAt(i, "unexpected end of line in array")
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, errAt(i, "unexpected %s in array, expected ',' or ']'", Describe(b, i))
		}
	}
}

func skipObject(b []byte, i, depth int) (int, error) {
	if depth > MaxDepth {
		return i, errAt(i, "nesting deeper than %d", MaxDepth)
	}
	return members(b, i, depth, nil)
}

// members walks the object at b[i]; fn (if non-nil) sees each member.
func members(b []byte, i, depth int, fn func(key []byte, escaped bool, val []byte) error) (int, error) {
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, errAt(i, "unexpected %s in object, expected a member name", Describe(b, i))
		}
		kend, kesc, err := SkipString(b, i)
		if err != nil {
			return i, err
		}
		key := b[i+1 : kend-1]
		i = SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return i, errAt(i, "unexpected %s after member name, expected ':'", Describe(b, i))
		}
		i = SkipSpace(b, i+1)
		vstart := i
		if i, err = skipValue(b, i, depth); err != nil {
			return i, err
		}
		if fn != nil {
			if err := fn(key, kesc, b[vstart:i]); err != nil {
				return vstart, err
			}
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, errAt(i, "unexpected end of line in object")
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, errAt(i, "unexpected %s in object, expected ',' or '}'", Describe(b, i))
		}
	}
}

// ErrNotObject is returned by Object when the text is valid JSON but not an object.
type ErrNotObject struct{ Found string }

// Error names the kind of value found instead of an object.
func (e *ErrNotObject) Error() string { return "expected a JSON object, found " + e.Found }

// Object validates that b is exactly one JSON object (surrounding space
// allowed) and calls fn for each member in order with the raw key bytes
// (unescaped only if escaped is false) and the raw value span. An error from
// fn stops the walk and is returned as is.
func Object(b []byte, fn func(key []byte, escaped bool, val []byte) error) error {
	i := SkipSpace(b, 0)
	if i >= len(b) {
		return errAt(i, "empty input, expected a JSON object")
	}
	if b[i] != '{' {
		end, err := SkipValue(b, i)
		if err != nil {
			return err
		}
		// Trailing garbage makes the text broken, not merely "not an
		// object": "[1] x" must not pass for a well-formed array.
		if j := SkipSpace(b, end); j != len(b) {
			return errAt(j, "unexpected %s after the value", Describe(b, j))
		}
		return &ErrNotObject{Found: Kind(b[i])}
	}
	end, err := members(b, i, 1, fn)
	if err != nil {
		return err
	}
	if j := SkipSpace(b, end); j != len(b) {
		return errAt(j, "unexpected %s after the object", Describe(b, j))
	}
	return nil
}

// Kind names the JSON kind that starts with c ("an array", "a string", ...).
func Kind(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// Int decodes a raw JSON integer value.
func Int(val []byte) (int64, error) {
	if len(val) == 0 || !(val[0] == '-' || val[0] >= '0' && val[0] <= '9') {
		return 0, fmt.Errorf("expected an integer, found %s", found(val))
	}
	// Seqs and times are decoded on every line; up to 18 digits cannot
	// overflow, so they need neither strconv nor a string copy.
	digits := val
	if val[0] == '-' {
		digits = val[1:]
	}
	if len(digits) > 0 && len(digits) <= 18 {
		var n int64
		for _, c := range digits {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("expected an integer, found %s", val)
			}
			n = n*10 + int64(c-'0')
		}
		if val[0] == '-' {
			n = -n
		}
		return n, nil
	}
	n, err := strconv.ParseInt(string(val), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("expected an integer, found %s", val)
	}
	return n, nil
}

// Bool decodes a raw JSON boolean value.
func Bool(val []byte) (bool, error) {
	switch string(val) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("expected a boolean, found %s", found(val))
}

// IsNull reports whether the raw value is the literal null.
func IsNull(val []byte) bool { return string(val) == "null" }

func found(val []byte) string {
	if len(val) == 0 {
		return "nothing"
	}
	return Kind(val[0])
}

// Ints decodes a raw JSON array of integers.
func Ints(val []byte) ([]int64, error) {
	out := []int64{}
	err := elements(val, "integers", func(elem []byte) error {
		n, err := Int(elem)
		out = append(out, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Strings decodes a raw JSON array of strings.
func Strings(val []byte) ([]string, error) {
	out := []string{}
	err := elements(val, "strings", func(elem []byte) error {
		s, err := String(elem)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Elements calls fn with the span of each element of the array that val
// must be exactly (no space around it), in order; an error from fn stops
// the walk and is returned.
func Elements(val []byte, fn func(elem []byte) error) error { return elements(val, "values", fn) }

// EachElement walks the array val is, exactly (no space around it):
// elem(e) for each element, in order. It returns false for anything but
// an array, and once elem does: the walk of a hand reader, which leaves
// such a text to encoding/json.
func EachElement(val []byte, elem func(e []byte) bool) bool {
	return elements(val, "values", func(e []byte) error {
		if !elem(e) {
			return errStopped
		}
		return nil
	}) == nil
}

var errStopped = errors.New("the walk was stopped")

// Slice reads val, an array, as encoding/json reads it into a []T: each
// element with read (a hand reader of one T), a null element a zero T,
// [] an empty slice, not nil. It returns false for anything but an array
// and once read does.
func Slice[T any](val []byte, read func(b []byte, v *T) bool) ([]T, bool) {
	out := []T{}
	ok := EachElement(val, func(e []byte) bool {
		out = append(out, *new(T))
		return IsNull(e) || read(e, &out[len(out)-1])
	})
	return out, ok
}

// elements calls fn with the span of each element of the array that val must
// be exactly. It checks the punctuation itself, so a span that was never
// validated cannot pass for a shorter array.
func elements(val []byte, what string, fn func(elem []byte) error) error {
	if len(val) == 0 || val[0] != '[' {
		return fmt.Errorf("expected an array of %s, found %s", what, found(val))
	}
	i := SkipSpace(val, 1)
	if i < len(val) && val[i] == ']' {
		i++
	} else {
		for {
			end, err := SkipValue(val, i)
			if err != nil {
				return err
			}
			if err := fn(val[i:end]); err != nil {
				return err
			}
			i = SkipSpace(val, end)
			if i < len(val) && val[i] == ',' {
				i = SkipSpace(val, i+1)
				continue
			}
			if i < len(val) && val[i] == ']' {
				i++
				break
			}
			return errAt(i, "unexpected %s in array, expected ',' or ']'", Describe(val, i))
		}
	}
	if i != len(val) {
		return errAt(i, "unexpected %s after the array", Describe(val, i))
	}
	return nil
}

// Members walks a raw JSON object value that is already known to be valid
// (for example a span returned by Object); fn sees each member.
func Members(val []byte, fn func(key []byte, escaped bool, val []byte) error) error {
	if len(val) == 0 || val[0] != '{' {
		return fmt.Errorf("expected an object, found %s", found(val))
	}
	_, err := members(val, 0, 1, fn)
	return err
}
