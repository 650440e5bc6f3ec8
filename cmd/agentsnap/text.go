package main

import (
	"strconv"
	"strings"
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

// alignColumns lays rows out as columns two spaces apart, each as wide as
// its widest cell, with no trailing spaces; a column empty in every row is
// left out. Put variable-width columns last: a long cell widens its whole
// column.
func alignColumns(rows [][]string) []string {
	var widths []int
	for _, r := range rows {
		for i, cell := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	out := make([]string, len(rows))
	for k, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			if widths[i] == 0 {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("  ")
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)))
		}
		out[k] = strings.TrimRight(b.String(), " ")
	}
	return out
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
