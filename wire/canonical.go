package wire

import (
	"bytes"
	"encoding/json"
	"sort"
)

// canonical returns the JSON value raw in one spelling: compact, object
// members in name order at every depth, numbers and strings as written.
// Two values that mean the same JSON get the same bytes, so a request's
// settings compare equal whatever order an SDK wrote them in.
func canonical(raw []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.Bytes(), nil
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case string:
		writeString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	default:
		b.WriteString("null")
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
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
// as canonical JSON, or nil when there are none.
func settings(members map[string]json.RawMessage, known ...string) (json.RawMessage, error) {
	rest := map[string]json.RawMessage{}
	for k, v := range members {
		rest[k] = v
	}
	for _, k := range known {
		delete(rest, k)
	}
	if len(rest) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	return canonical(b)
}
