// Package placeholder replaces machine paths in recorded bytes with stable
// placeholders ({{cwd}}, {{tmp}}, {{home}}), so fixtures do not depend on
// the machine that recorded or replays them.
package placeholder

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
)

// Cwd is the placeholder of the working folder.
const Cwd = "{{cwd}}"

// Pair maps a machine path to its placeholder.
type Pair struct{ Path, Name string }

// Defaults returns the working folder, the temporary folder and the home
// folder with their placeholders, cleaned (no trailing separator) and
// longest path first, so a folder inside another is replaced before its
// parent. Paths shorter than two bytes ("/") are left out: replacing them
// would rewrite every separator.
func Defaults() []Pair {
	var out []Pair
	if cwd, err := os.Getwd(); err == nil {
		out = append(out, Pair{cwd, Cwd})
	}
	out = append(out, Pair{os.TempDir(), "{{tmp}}"})
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, Pair{home, "{{home}}"})
	}
	for i := range out {
		out[i].Path = filepath.Clean(out[i].Path)
	}
	out = slices.DeleteFunc(out, func(p Pair) bool { return len(p.Path) < 2 })
	slices.SortStableFunc(out, func(a, b Pair) int { return len(b.Path) - len(a.Path) })
	return out
}

// Apply replaces the paths of pairs in b, one pair after another, and
// returns the result. b itself is never written to, but the result is b when
// nothing was replaced. A path is replaced only where it is a whole path's
// beginning and ends a path component: "/home/al" is replaced in
// "/home/al/x", "\"/home/al\"" and "\\n/home/al" (after a JSON escape), not
// in "/home/alice" nor in "/srv/home/al" or "./home/al". Pairs with an
// empty path are skipped.
func Apply(b []byte, pairs []Pair) []byte {
	for _, p := range pairs {
		if p.Path != "" {
			b = replacePath(b, []byte(p.Path), []byte(p.Name))
		}
	}
	return b
}

// replacePath replaces each occurrence of path in b that is not followed by
// a byte that would continue its last component. It returns b unchanged
// (not a copy) when nothing is replaced.
func replacePath(b, path, name []byte) []byte {
	var out []byte
	replaced := false
	last := 0
	for i := 0; i <= len(b)-len(path); {
		j := bytes.Index(b[i:], path)
		if j < 0 {
			break
		}
		j += i
		end := j + len(path)
		if !startsPath(b, j) || end < len(b) && continuesName(b[end]) {
			i = j + 1
			continue
		}
		out = append(append(out, b[last:j]...), name...)
		last, i, replaced = end, end, true
	}
	if !replaced {
		return b
	}
	return append(out, b[last:]...)
}

// startsPath reports whether a path found at b[j] begins there, rather
// than ends a longer path ("/srv" before "/home/al", "." or a name before
// it). A JSON escape such as \n or \t before it ends the text before it.
func startsPath(b []byte, j int) bool {
	if j == 0 {
		return true
	}
	c := b[j-1]
	switch {
	case c == '/' || c == '.' || c == '~':
		return false
	case !continuesName(c):
		return true
	}
	return j >= 2 && b[j-2] == '\\' && bytes.IndexByte([]byte("nrtbf"), c) >= 0
}

// continuesName reports whether c, right after a path, makes it a longer
// file name. A dot does not: sentences end in one more often than sibling
// folders are named "dir.ext".
func continuesName(c byte) bool {
	return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
