package jsonscan

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf8"
)

// AppendCanonical appends the JSON text raw to dst in canonical form: the
// bytes encoding/json writes when it decodes raw into an any (UseNumber)
// and encodes that again without HTML escaping, less the newline. Object
// members come out sorted by their decoded names (the last of duplicate
// names wins), strings re-encoded from what they decode to, numbers and
// literals as written, no space. It exists so that values which mean the
// same JSON compare and digest the same without a reflective round trip
// and an allocation per value.
//
// raw must be exactly one JSON value, with space around it allowed: it
// errors (a *SyntaxError, dst returned unchanged) on invalid JSON, on
// blank input, on anything but space after the value — which encoding/json's
// Decoder would leave unread — and on nesting deeper than MaxDepth, as
// encoding/json does.
func AppendCanonical(dst, raw []byte) ([]byte, error) {
	n := len(dst)
	i := SkipSpace(raw, 0)
	// The output is about as long as the input: one allocation, not one
	// per doubling.
	dst = slices.Grow(dst, len(raw))
	c := canonicalizers.Get().(*canonicalizer)
	c.raw = raw
	out, end, err := c.value(dst, i, 0)
	c.raw, c.members, c.names = nil, c.members[:0], c.names[:0]
	if cap(c.members) <= 1024 && cap(c.names)+cap(c.scratch) <= 1<<16 { // keep no giant's room
		canonicalizers.Put(c)
	}
	if err == nil {
		if j := SkipSpace(raw, end); j != len(raw) {
			err = errAt(j, "unexpected %s after the value", Describe(raw, j))
		}
	}
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// canonicalizers keeps the state of finished calls, so that a call
// allocates nothing but the room its output needs.
var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

// canonicalizer holds what AppendCanonical reuses across the objects of
// one text: a stack of member records, the names that had to be decoded,
// and the room an object is copied to while its members are put in order.
type canonicalizer struct {
	raw     []byte
	members []canonMember
	names   []byte
	scratch []byte
}

// canonMember is one member of an object being written: where its name
// is (in raw, or in names when it had to be decoded) and where
// `"name":value` went in the output.
type canonMember struct {
	inNames    bool
	kStart     int
	kEnd       int
	start, end int
}

// name is the decoded name of m.
func (c *canonicalizer) name(m *canonMember) []byte {
	if m.inNames {
		return c.names[m.kStart:m.kEnd]
	}
	return c.raw[m.kStart:m.kEnd]
}

// value writes the value at raw[i] and returns the output and the index
// past the value. It validates as it writes, so a broken text is found in
// one pass.
func (c *canonicalizer) value(dst []byte, i, depth int) ([]byte, int, error) {
	b := c.raw
	if i >= len(b) {
		return dst, i, errAt(i, "unexpected end of line, expected a value")
	}
	switch ch := b[i]; {
	case ch == '"':
		end, escaped, err := SkipString(b, i)
		if err != nil {
			return dst, i, err
		}
		return appendCanonString(dst, b[i:end], escaped), end, nil
	case ch == '{':
		return c.object(dst, i, depth+1)
	case ch == '[':
		return c.array(dst, i, depth+1)
	case ch == '-' || (ch >= '0' && ch <= '9'):
		end, err := skipNumber(b, i)
		if err != nil {
			return dst, i, err
		}
		return append(dst, b[i:end]...), end, nil // json.Number: as written
	case ch == 't' || ch == 'f' || ch == 'n':
		lit := "null"
		if ch == 't' {
			lit = "true"
		} else if ch == 'f' {
			lit = "false"
		}
		end, err := skipLiteral(b, i, lit)
		if err != nil {
			return dst, i, err
		}
		return append(dst, lit...), end, nil
	default:
		return dst, i, errAt(i, "unexpected %s, expected a value", Describe(b, i))
	}
}

func (c *canonicalizer) array(dst []byte, i, depth int) ([]byte, int, error) {
	b := c.raw
	if depth > MaxDepth {
		return dst, i, errAt(i, "nesting deeper than %d", MaxDepth)
	}
	dst = append(dst, '[')
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return append(dst, ']'), i + 1, nil
	}
	for {
		var err error
		if dst, i, err = c.value(dst, i, depth); err != nil {
			return dst, i, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return dst, i, errAt(i, "unexpected end of line in array")
		}
		switch b[i] {
		case ',':
			dst = append(dst, ',')
			i = SkipSpace(b, i+1)
		case ']':
			return append(dst, ']'), i + 1, nil
		default:
			return dst, i, errAt(i, "unexpected %s in array, expected ',' or ']'", Describe(b, i))
		}
	}
}

// object writes the members in the order they come, recording where each
// went, then rewrites them in name order when they were not in it already
// (the usual case for text that is canonical already needs no copy).
func (c *canonicalizer) object(dst []byte, i, depth int) ([]byte, int, error) {
	b := c.raw
	if depth > MaxDepth {
		return dst, i, errAt(i, "nesting deeper than %d", MaxDepth)
	}
	start := len(dst)
	dst = append(dst, '{')
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return append(dst, '}'), i + 1, nil
	}
	// Nested objects push their members above these and pop them when
	// done; on an error the whole text is dropped, so nothing is popped.
	base, nameBase := len(c.members), len(c.names)
	for {
		if i >= len(b) || b[i] != '"' {
			return dst, i, errAt(i, "unexpected %s in object, expected a member name", Describe(b, i))
		}
		kend, escaped, err := SkipString(b, i)
		if err != nil {
			return dst, i, err
		}
		m := canonMember{kStart: i + 1, kEnd: kend - 1, start: len(dst)}
		if inner := b[i+1 : kend-1]; escaped || !utf8.Valid(inner) {
			m.inNames, m.kStart = true, len(c.names)
			c.names = appendUnescaped(c.names, inner)
			m.kEnd = len(c.names)
		}
		dst = appendCanonString(dst, b[i:kend], escaped)
		i = SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return dst, i, errAt(i, "unexpected %s after member name, expected ':'", Describe(b, i))
		}
		dst = append(dst, ':')
		if dst, i, err = c.value(dst, SkipSpace(b, i+1), depth); err != nil {
			return dst, i, err
		}
		m.end = len(dst)
		c.members = append(c.members, m)
		i = SkipSpace(b, i)
		if i >= len(b) {
			return dst, i, errAt(i, "unexpected end of line in object")
		}
		switch b[i] {
		case ',':
			dst = append(dst, ',')
			i = SkipSpace(b, i+1)
			continue
		case '}':
			i++
		default:
			return dst, i, errAt(i, "unexpected %s in object, expected ',' or '}'", Describe(b, i))
		}
		break
	}
	dst = c.order(append(dst, '}'), start, c.members[base:])
	c.members, c.names = c.members[:base], c.names[:nameBase]
	return dst, i, nil
}

// order rewrites the object written at dst[start:] with its members ms
// sorted by name, keeping the last of equal names as encoding/json's map
// does; dst is returned as it is when they are in strict order already.
func (c *canonicalizer) order(dst []byte, start int, ms []canonMember) []byte {
	sorted := true
	for k := 1; k < len(ms); k++ {
		if bytes.Compare(c.name(&ms[k-1]), c.name(&ms[k])) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return dst
	}
	// Equal names keep their order (start grows with it), so the last of
	// a run is the one that counts.
	slices.SortFunc(ms, func(x, y canonMember) int {
		if n := bytes.Compare(c.name(&x), c.name(&y)); n != 0 {
			return n
		}
		return x.start - y.start
	})
	c.scratch = append(c.scratch[:0], dst[start:]...)
	dst = append(dst[:start], '{')
	for k := range ms {
		if k+1 < len(ms) && bytes.Equal(c.name(&ms[k]), c.name(&ms[k+1])) {
			continue // a later duplicate wins
		}
		if len(dst) > start+1 {
			dst = append(dst, ',')
		}
		dst = append(dst, c.scratch[ms[k].start-start:ms[k].end-start]...)
	}
	return append(dst, '}')
}

// appendCanonString appends the valid string token tok (quotes included)
// as encoding/json writes, HTML escaping off, the string it decodes to. A
// string with no escape and only ASCII is copied as is.
func appendCanonString(dst, tok []byte, escaped bool) []byte {
	inner := tok[1 : len(tok)-1]
	if !escaped {
		ascii := true
		for _, ch := range inner {
			if ch >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if ascii { // nothing to decode, nothing to escape
			return append(dst, tok...)
		}
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(inner); {
		ch := inner[i]
		if ch < utf8.RuneSelf {
			if ch != '\\' { // valid: no quote, no control character
				i++
				continue
			}
			dst = append(dst, inner[start:i]...)
			if e := inner[i+1]; e != 'u' {
				if e == '/' {
					dst = append(dst, '/')
				} else {
					dst = append(dst, '\\', e) // \" \\ \b \f \n \r \t: written alike
				}
				i += 2
				start = i
				continue
			}
			var r rune
			r, i = unicodeEscape(inner, i)
			dst = appendStdRune(dst, r)
			start = i
			continue
		}
		r, size := utf8.DecodeRune(inner[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// Decoded to U+FFFD, which is then written as itself.
			dst = append(append(dst, inner[start:i]...), "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, inner[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, inner[start:]...), '"')
}

// appendStdRune appends the valid rune r as encoding/json writes it in a
// string with HTML escaping off.
func appendStdRune(dst []byte, r rune) []byte {
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r == '\b':
		return append(dst, '\\', 'b')
	case r == '\f':
		return append(dst, '\\', 'f')
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\r':
		return append(dst, '\\', 'r')
	case r == '\t':
		return append(dst, '\\', 't')
	case r < 0x20:
		return append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
	case r == '\u2028' || r == '\u2029':
		return append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
	default:
		return utf8.AppendRune(dst, r)
	}
}
