package main

import (
	"path/filepath"
	"regexp"
	"slices"
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

// escapeNames escapes each of names (see printable) wherever text holds
// it, so a name's line break cannot split the line that quotes it where
// printableLines keeps the text's own. A multi-line message indents its
// continuation lines, a name's newline included: a name is matched with
// any indentation after its newlines.
func escapeNames(text string, names []string) string {
	for _, s := range names {
		if s == "" {
			continue
		}
		parts := strings.Split(s, "\n")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		text = regexp.MustCompile(strings.Join(parts, `\n *`)).ReplaceAllLiteralString(text, printable(s))
	}
	return text
}

// unsafeArgs returns the command-line arguments, and each of their path
// elements, that printable would escape, longest first: the folders and
// files a command's messages quote (a scenario named with a newline).
func unsafeArgs(args []string) []string {
	var out []string
	for _, a := range args {
		for _, s := range append([]string{a}, strings.FieldsFunc(a, func(r rune) bool { return r == '/' || r == filepath.Separator })...) {
			if printable(s) != s && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
