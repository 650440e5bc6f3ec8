// Package columns lays text out in aligned columns, for the tables the CLI
// and the failure messages print.
package columns

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Align lays rows out as columns two spaces apart, each as wide as its
// widest cell, with no trailing spaces. The columns listed in right are
// padded on the left (numbers); the others on the right. A column empty in
// every row is left out. Put variable-width columns last: a long cell
// widens its whole column.
func Align(rows [][]string, right ...int) []string {
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
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if slices.Contains(right, i) {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		out[k] = strings.TrimRight(b.String(), " ")
	}
	return out
}
