package main

import (
	"strings"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/termtext"
)

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

// printable is termtext.String: s escaped for a terminal, on one line.
func printable(s string) string { return termtext.String(s) }

// printableLines is termtext.Lines: text of many lines escaped for a
// terminal, its line breaks and tabs kept.
func printableLines(s string) string { return termtext.Lines(s) }
