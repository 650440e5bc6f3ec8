// Package textdiff renders line diffs in one fixed direction for every
// failure agentsnap prints: "-" lines are the golden (recorded) side, "+"
// lines the replay.
package textdiff

import (
	"fmt"
	"slices"
	"strings"
)

// Header starts every diff.
const Header = "[diff -golden +replay]"

// MaxLines caps the printed diff; the rest is summarised.
const MaxLines = 200

// Unified returns a unified diff of golden and replay with context lines
// (0 or more) around each change, or "" when they are equal. A last line
// without a newline is marked "(no newline at end)", so a diff that only
// differs there still shows. Output beyond MaxLines lines is cut and says so.
func Unified(golden, replay string, context int) string {
	if golden == replay {
		return ""
	}
	context = max(context, 0)
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
			out = append(out, string(op.kind)+shown(op.text))
		}
		i = end
	}
	if len(out) > MaxLines {
		rest := len(out) - MaxLines
		out = append(out[:MaxLines], fmt.Sprintf("... %d more diff lines not shown; compare the files with: diff -u GOLDEN REPLAY", rest))
	}
	return strings.Join(out, "\n") + "\n"
}

// splitLines cuts s into lines that keep their newline: a last line
// without one is another line than the same text with one, whatever text
// shown gives it.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// shown is a line as the diff prints it: without its newline, or marked
// when it has none.
func shown(l string) string {
	if t, ok := strings.CutSuffix(l, "\n"); ok {
		return t
	}
	return l + " (no newline at end)"
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line indexes (0-based) in golden and replay at this op
}

// diffLines computes a shortest edit script: the common prefix and suffix
// are cut off, and Myers' O(ND) algorithm diffs the middle, so a few changes
// in a long file cost little whatever their distance. Inputs that differ in
// more than maxEdits lines fall back to "all removed, all added".
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
	if mid, ok := myers(ma, mb, pre); ok {
		ops = append(ops, mid...)
	} else {
		for i, l := range ma {
			ops = append(ops, op{'-', l, pre + i, pre})
		}
		for j, l := range mb {
			ops = append(ops, op{'+', l, pre + len(ma), pre + j})
		}
	}
	for k := 0; k < suf; k++ {
		i, j := len(a)-suf+k, len(b)-suf+k
		ops = append(ops, op{' ', a[i], i, j})
	}
	return ops
}

// maxEdits bounds the edit distance myers searches: its trace grows with the
// square of the distance (about 16 MB at this bound). A variable so tests
// can reach the fallback with small inputs.
var maxEdits = 2000

// myers returns the edit script of a to b, deletions before insertions in
// each change, with line indexes offset by off. ok is false when more than
// maxEdits edits are needed.
func myers(a, b []string, off int) (ops []op, ok bool) {
	// Compare small integers instead of strings in the inner loop.
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, seen := ids[l]
			if !seen {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	n, m := len(x), len(y)
	limit := min(n+m, maxEdits)
	// v[k+limit+1] is the furthest x reached on diagonal k = x-y; trace[d]
	// keeps v's diagonals -d-1..d+1 as they were before round d.
	v := make([]int32, 2*limit+3)
	var trace [][]int32
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int32(nil), v[limit-d:limit+d+3]...))
		for k := -d; k <= d; k += 2 {
			i := k + limit + 1
			var px int32
			if k == -d || (k != d && v[i-1] < v[i+1]) {
				px = v[i+1] // down: insert b[y]
			} else {
				px = v[i-1] + 1 // right: delete a[x]
			}
			py := px - int32(k)
			for int(px) < n && int(py) < m && x[px] == y[py] {
				px, py = px+1, py+1
			}
			v[i] = px
			if int(px) >= n && int(py) >= m {
				return backtrack(a, b, trace, off), true
			}
		}
	}
	return nil, false
}

// backtrack walks the trace from the end back to the start and returns the
// edit script in order.
func backtrack(a, b []string, trace [][]int32, off int) []op {
	var rev []op
	x, y := len(a), len(b)
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d] // index j holds diagonal j-d-1
		k := x - y
		at := func(k int) int { return int(v[k+d+1]) }
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := 0
		if d > 0 {
			px = at(pk)
		}
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', a[x], off + x, off + y})
		}
		if d == 0 {
			break
		}
		if x == px {
			rev = append(rev, op{'+', b[py], off + px, off + py})
		} else {
			rev = append(rev, op{'-', a[px], off + px, off + py})
		}
		x, y = px, py
	}
	slices.Reverse(rev)
	return rev
}
