package wire

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// canonical returns the JSON value raw in one spelling: compact, object
// members in name order at every depth, numbers as written, strings
// re-encoded as encoding/json writes what they decode to (HTML escaping
// off). Two values that mean the same JSON get the same bytes, so a
// request's settings compare equal whatever order an SDK wrote them in.
// raw must be one value, space around it allowed (jsonscan.AppendCanonical).
func canonical(raw []byte) (json.RawMessage, error) {
	return jsonscan.AppendCanonical(nil, raw)
}

// sameJSON reports whether two texts are the same JSON value (or, when
// either is not JSON, the same text).
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	ca, err1 := canonical([]byte(a))
	cb, err2 := canonical([]byte(b))
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// settings returns the members of a request object that are not in known,
// as canonical JSON, or nil when there are none. It runs on every request,
// so it writes the object itself — names in order, each value canonical —
// rather than marshalling a map and canonicalizing that; the bytes are the
// same.
func settings(members map[string]json.RawMessage, known ...string) (json.RawMessage, error) {
	var room [16]string
	names := room[:0]
	valid := true
	for k := range members {
		if !slices.Contains(known, k) {
			names = append(names, k)
			valid = valid && utf8.ValidString(k)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	slices.Sort(names)
	size := 2
	for _, k := range names {
		size += len(k) + 4 + len(members[k]) // "k":v, (null for nil)
	}
	b := append(make([]byte, 0, size), '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonscan.AppendStdString(b, k), ':')
		v := members[k]
		if v == nil {
			v = json.RawMessage("null") // as json.Marshal writes a nil RawMessage
		}
		var err error
		if b, err = jsonscan.AppendCanonical(b, v); err != nil {
			return nil, err
		}
	}
	b = append(b, '}')
	if !valid {
		// A name that is not UTF-8 decodes with U+FFFD in it, and so may
		// sort elsewhere or meet another; canonicalize the whole again.
		return canonical(b)
	}
	return b, nil
}
