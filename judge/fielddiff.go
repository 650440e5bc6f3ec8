package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/internal/termtext"
)

// firstFieldDiff decodes two JSON lines and returns the path of the first
// member that differs, with both values abbreviated.
func firstFieldDiff(golden, replay []byte) (field, g, r string) {
	// Both lines alike: a number read as json.Number on one side and as
	// float64 on the other never compares equal, and an equal count would
	// be named as the member that differs.
	exact := longDigits(golden) || longDigits(replay)
	gv, gerr := decodeExact(golden, exact)
	rv, rerr := decodeExact(replay, exact)
	if gerr != nil || rerr != nil {
		return "line", abbrev(string(golden)), abbrev(string(replay))
	}
	path, a, b := walk("", gv, rv)
	if path == "" {
		path = "(whole line)"
	}
	return path, a, b
}

// decodeExact decodes a JSON value, with exact, its numbers as written:
// as float64 two counts past 2^53 would read alike (no field found to
// differ) or show as a number neither line holds. Only lines with such a
// number (16 digits or more) go through a Decoder, which copies the line
// as it reads; the others, recorded texts of any size, decode in place.
func decodeExact(b []byte, exact bool) (any, error) {
	var v any
	if !exact {
		return v, json.Unmarshal(b, &v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// longDigits reports whether b holds a run of 16 digits or more, a
// decimal point within it not counted but not ending it: a number float64
// may not hold exactly, 123456789.123456789 too (or a string of digits).
func longDigits(b []byte) bool {
	run := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if run++; run >= 16 {
				return true
			}
		case c != '.':
			run = 0
		}
	}
	return false
}

// walk returns the first differing path under two decoded JSON values.
func walk(path string, a, b any) (string, string, string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			x, inA := av[k]
			y, inB := bv[k]
			sub := join(path, k)
			switch {
			case !inA:
				return sub, "(absent)", show(y)
			case !inB:
				return sub, show(x), "(absent)"
			}
			if p, g, r := walk(sub, x, y); p != "" {
				return p, g, r
			}
		}
		return "", "", ""
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(av) && i < len(bv); i++ {
			if p, g, r := walk(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); p != "" {
				return p, g, r
			}
		}
		if len(av) != len(bv) {
			return path, fmt.Sprintf("%d items", len(av)), fmt.Sprintf("%d items", len(bv))
		}
		return "", "", ""
	default:
		// A scalar (string, number, bool, null) is comparable; b of another
		// type is not equal, whatever it is. No copy of a long text.
		if a == b {
			return "", "", ""
		}
	}
	if path == "" {
		path = "(value)"
	}
	return path, show(a), show(b)
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func show(v any) string {
	if s, ok := v.(string); ok && len(s) > 4*abbrevRunes+8 {
		// Only the first runes show: marshal no more than hold them.
		v = s[:4*abbrevRunes+8]
	}
	b, _ := json.Marshal(v)
	return abbrev(string(b))
}

// abbrevRunes is how many runes of a value a difference shows.
const abbrevRunes = 160

// abbrev returns s cut to its first abbrevRunes runes (termtext.Cut).
func abbrev(s string) string { return termtext.Cut(s, abbrevRunes) }
