// Package textdiff renders line diffs in one fixed direction for every
// failure agentsnap prints: "-" lines are the golden (recorded) side, "+"
// lines the replay.
package textdiff

import (
	"fmt"
	"strings"
)

// Header starts every diff.
const Header = "[diff -golden +replay]"

// MaxLines caps the printed diff; the rest is summarised.
const MaxLines = 200

// Unified returns a unified diff of golden and replay with context lines
// around each change, or "" when they are equal.
func Unified(golden, replay string, context int) string {
	if golden == replay {
		return ""
	}
	a, b := splitLines(golden), splitLines(replay)
	ops := diffLines(a, b)
	var out []string
	out = append(out, Header)
	// Group ops into hunks with context.
	n := len(ops)
	i := 0
	for i < n {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-context)
		end := i
		for end < n {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < n && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*context || run == n {
				end = min(n, end+context)
				break
			}
			end = run
		}
		aLine, bLine := ops[start].a+1, ops[start].b+1
		out = append(out, fmt.Sprintf("@@ golden line %d, replay line %d @@", aLine, bLine))
		for _, op := range ops[start:end] {
			out = append(out, string(op.kind)+op.text)
		}
		i = end
	}
	if len(out) > MaxLines {
		rest := len(out) - MaxLines
		out = append(out[:MaxLines], fmt.Sprintf("... %d more diff lines not shown; compare the files with: diff -u GOLDEN REPLAY", rest))
	}
	return strings.Join(out, "\n") + "\n"
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = l[:len(l)-1]
		} else {
			lines[i] = l + " (no newline at end)"
		}
	}
	return lines
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line indexes (0-based) in golden and replay at this op
}

// diffLines computes a shortest edit script with an LCS table on the part
// between the common prefix and suffix. Transcripts are small; inputs whose
// middle exceeds the table budget fall back to "all removed, all added".
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > 4_000_000 {
		for i, l := range ma {
			ops = append(ops, op{'-', l, pre + i, pre})
		}
		for j, l := range mb {
			ops = append(ops, op{'+', l, pre + len(ma), pre + j})
		}
	} else {
		ops = append(ops, lcs(ma, mb, pre)...)
	}
	for k := 0; k < suf; k++ {
		i, j := len(a)-suf+k, len(b)-suf+k
		ops = append(ops, op{' ', a[i], i, j})
	}
	return ops
}

func lcs(a, b []string, off int) []op {
	m, n := len(a), len(b)
	t := make([][]int32, m+1)
	for i := range t {
		t[i] = make([]int32, n+1)
	}
	for i := m - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < m || j < n {
		switch {
		case i < m && j < n && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], off + i, off + j})
			i++
			j++
		case i < m && (j == n || t[i+1][j] >= t[i][j+1]):
			ops = append(ops, op{'-', a[i], off + i, off + j})
			i++
		default:
			ops = append(ops, op{'+', b[j], off + i, off + j})
			j++
		}
	}
	return ops
}
