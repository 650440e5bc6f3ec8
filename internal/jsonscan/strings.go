package jsonscan

import (
	"bytes"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Key returns the member name as a string, decoding escapes when present
// and turning invalid UTF-8 into U+FFFD, as encoding/json does.
func Key(key []byte, escaped bool) string {
	if !escaped && utf8.Valid(key) {
		return string(key)
	}
	s, _ := unquote(append(append([]byte{'"'}, key...), '"'))
	return s
}

// String decodes a raw JSON string value, a token a validating scan
// returned: an unescaped string is only checked for UTF-8, so a text that
// is not one token (a quote or a control character inside) is not refused.
func String(val []byte) (string, error) {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return "", fmt.Errorf("expected a string, found %s", found(val))
	}
	return unquote(val)
}

func unquote(val []byte) (string, error) {
	inner := val[1 : len(val)-1]
	// Most strings of a log (deltas, ids, prose in any language) hold no
	// escape; those need no decoder, only a UTF-8 check, because invalid
	// bytes decode to U+FFFD as encoding/json does.
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	// String is exported: val may never have been validated, and the
	// decoder trusts its escapes.
	if end, _, err := SkipString(val, 0); err != nil || end != len(val) {
		return "", fmt.Errorf("expected a string, found broken JSON %.40q", val)
	}
	return decodeEscaped(inner), nil
}

// decodeEscaped decodes the inner bytes of a valid JSON string that holds
// escapes or invalid UTF-8, with encoding/json's rules: a lone or broken
// surrogate and every invalid byte become U+FFFD.
func decodeEscaped(inner []byte) string {
	return string(appendUnescaped(make([]byte, 0, len(inner)), inner))
}

// appendUnescaped appends what the inner bytes of a valid JSON string
// decode to (decodeEscaped's rules), so AppendCanonical can sort by the
// decoded names of an object without a string per name.
func appendUnescaped(out, inner []byte) []byte {
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\':
			i++
			switch e := inner[i]; e {
			case 'u':
				var r rune
				r, i = unicodeEscape(inner, i-1)
				out = utf8.AppendRune(out, r)
			default:
				out = append(out, unescape[e])
				i++
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(inner[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, r)
			} else {
				out = append(out, inner[i:i+size]...)
			}
			i += size
		}
	}
	return out
}

// unicodeEscape decodes the \u escape at inner[i] of a valid string, and
// the low half of a surrogate pair after it, as encoding/json does: a lone
// or broken surrogate is U+FFFD. It returns the rune and the index past
// what it decoded.
func unicodeEscape(inner []byte, i int) (rune, int) {
	r := hex4(inner[i+2 : i+6])
	i += 6
	if !utf16.IsSurrogate(r) {
		return r, i
	}
	r2 := rune(-1)
	if i+6 <= len(inner) && inner[i] == '\\' && inner[i+1] == 'u' {
		r2 = hex4(inner[i+2 : i+6])
	}
	if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
		return pair, i + 6
	}
	return utf8.RuneError, i
}

// unescape maps the character after a backslash to the byte it stands for.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 decodes four hex digits already checked by SkipString.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// AppendString appends s as a JSON string. Unlike encoding/json it does not
// escape <, > and &, so logs stay readable; the output is still valid JSON
// and decodes to the same string. It writes \b and \f as \u0008 and
// \u000c, as logs always have; otherwise it is AppendStdString.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, false, false) }

// AppendStdString appends s as encoding/json writes a string with HTML
// escaping off.
func AppendStdString(dst []byte, s string) []byte { return appendString(dst, s, true, false) }

// AppendHTMLString appends s as encoding/json's Marshal writes a string:
// AppendStdString, with <, > and & as \u003c, \u003e and \u0026.
func AppendHTMLString(dst []byte, s string) []byte { return appendString(dst, s, true, true) }

// appendString is AppendStdString, or AppendString when std is false;
// html escapes <, > and & too.
func appendString(dst []byte, s string, std, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time to the first that needs a look: digests,
		// ids and prose are long runs of bytes that stand for themselves.
		for i+8 <= len(s) {
			if m := lookAt(word(s, i), html); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case std && c == '\b':
				dst = append(dst, '\\', 'b')
			case std && c == '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		// The whole run of non-ASCII text before testing words again.
		for i < len(s) && s[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
				start = i + size
			case r == '\u2028' || r == '\u2029':
				dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
				start = i + size
			}
			i += size
		}
	}
	return append(append(dst, s[start:]...), '"')
}

const hexDigits = "0123456789abcdef"

// word is the eight bytes of s at i, the first in the lowest byte.
func word(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// lookAt marks with its high bit each byte of w that may not stand for
// itself in a JSON string: not ASCII, a control byte, '"' or '\\' (and <,
// > and & for html). For an ASCII byte x, x - n borrows into its high bit
// exactly when x < n; a borrow can mark bytes above a marked one, never
// below, so the lowest mark is exact.
func lookAt(w uint64, html bool) uint64 {
	m := w | (w - 0x20*ones) | ((w ^ '"'*ones) - ones) | ((w ^ '\\'*ones) - ones)
	if html {
		m |= ((w ^ '<'*ones) - ones) | ((w ^ '>'*ones) - ones) | ((w ^ '&'*ones) - ones)
	}
	return m & high
}

// AppendCompact appends the JSON text src to dst without the spaces between
// its tokens, as encoding/json's Compact does (strings kept byte for
// byte). src must be one value, with space around it allowed; otherwise it
// returns dst unchanged and the error.
func AppendCompact(dst, src []byte) ([]byte, error) {
	i := SkipSpace(src, 0)
	end, err := SkipValue(src, i)
	if err == nil {
		if j := SkipSpace(src, end); j != len(src) {
			err = errAt(j, "unexpected %s after the value", Describe(src, j))
		}
	}
	if err != nil {
		return dst, err
	}
	for i < end {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			// Valid: the string ends where SkipString says.
			stop, _, _ := SkipString(src, i)
			dst = append(dst, src[i:stop]...)
			i = stop
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst, nil
}
