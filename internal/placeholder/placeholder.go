// Package placeholder replaces machine paths in recorded bytes with stable
// placeholders ({{cwd}}, {{tmp}}, {{home}}), so fixtures do not depend on
// the machine that recorded or replays them.
package placeholder

import (
	"bytes"
	"os"
	"slices"
)

// Pair maps a machine path to its placeholder.
type Pair struct{ Path, Name string }

// Defaults returns the working folder, the temporary folder and the home
// folder with their placeholders, longest path first so a folder inside
// another is replaced before its parent.
func Defaults() []Pair {
	var out []Pair
	if cwd, err := os.Getwd(); err == nil {
		out = append(out, Pair{cwd, "{{cwd}}"})
	}
	out = append(out, Pair{os.TempDir(), "{{tmp}}"})
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, Pair{home, "{{home}}"})
	}
	out = slices.DeleteFunc(out, func(p Pair) bool { return len(p.Path) < 2 })
	slices.SortStableFunc(out, func(a, b Pair) int { return len(b.Path) - len(a.Path) })
	return out
}

// Apply replaces every path of pairs in b, in order.
func Apply(b []byte, pairs []Pair) []byte {
	for _, p := range pairs {
		b = bytes.ReplaceAll(b, []byte(p.Path), []byte(p.Name))
	}
	return b
}
