package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// count returns n with its noun, singular for one: count(1, "session") is
// "1 session", count(3, "model call") is "3 model calls". The noun must form
// its plural with an s.
func count(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// wrap breaks text into lines of at most width runes at spaces; a word
// longer than width gets a line of its own. It returns at least one line.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	return append(lines, line)
}

// printable returns s with what a terminal would act on instead of show
// escaped: control characters (a newline, a tab, the ESC of a colour
// sequence), line and paragraph separators and the marks that reorder
// text (bidi overrides), and bytes that are not UTF-8. A scenario folder
// or session id read from disk then prints as one line of itself, never as
// a forged table row or a colour.
func printable(s string) string {
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

// printableLines is printable for text of many lines shown in a
// terminal, a diff or a failure's report: each line is made printable and
// its line breaks and tabs stay. A recorded answer holding an escape
// sequence or a carriage return then shows as its escapes, instead of
// recolouring or overwriting the lines a reader is asked to accept.
func printableLines(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unsafeRune(r) }) && utf8.ValidString(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		cells := strings.Split(line, "\t")
		for j, c := range cells {
			cells[j] = printable(c)
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
