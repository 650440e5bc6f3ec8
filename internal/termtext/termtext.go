// Package termtext escapes text read from a fixture or a model — a
// folder name, a session id, a recorded answer — before it is shown in a
// terminal, so it cannot recolour, overwrite or forge the lines around
// it. The CLI, the harness's failure messages and a recording's summary
// share it.
package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with what a terminal would act on instead of show
// escaped: control characters (a newline, a tab, the ESC of a colour
// sequence), line and paragraph separators and the marks that reorder
// text (bidi overrides), and bytes that are not UTF-8. A scenario folder
// or session id read from disk then prints as one line of itself, never as
// a forged table row or a colour.
func String(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r):
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Lines is String for text of many lines shown in a
// terminal, a diff or a failure's report: each line is made printable and
// its line breaks and tabs stay. A recorded answer holding an escape
// sequence or a carriage return then shows as its escapes, instead of
// recolouring or overwriting the lines a reader is asked to accept.
func Lines(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unsafeRune(r) }) && utf8.ValidString(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		cells := strings.Split(line, "\t")
		for j, c := range cells {
			cells[j] = String(c)
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// unsafeRune reports whether r changes how a terminal lays text out.
func unsafeRune(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f', r == '\u061c':
		return true
	}
	return false
}

// Cut returns s cut to its first n runes, marked "…" when cut. It counts
// runes only up to the cut: a recorded text can be hundreds of megabytes,
// and a []rune of it four times that.
func Cut(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
