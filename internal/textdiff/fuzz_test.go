package textdiff

import (
	"strings"
	"testing"
)

// FuzzUnified diffs a golden and a replay, as check and review diff
// transcript.golden and its proposal, both read from files. Nothing may
// panic. The edit script keeps every line of each side in order (' ' and
// '-' give the golden, ' ' and '+' the replay) with the indexes of its
// place; within the edit budget it is shortest (checked against a
// longest-common-subsequence count on inputs of 40 lines or fewer);
// past it, it is the fallback, still complete. Unified is "" exactly
// for equal texts, else starts with Header, has at most MaxLines+1
// lines, and with a context of every line is one hunk showing each line
// of both sides. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzUnified$' -fuzztime 60s ./internal/textdiff
func FuzzUnified(f *testing.F) {
	for _, s := range [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"}, {"a\nb", "a\nb\n"}, {"", "x\n"}, {"x\n", ""}, {"same\n", "same\n"},
		{"a\na\nb\na\n", "b\na\na\na\nb\n"}, {"== root\n[turn 1]\nuser: hi\n", "== root\n[turn 1]\nuser: hello\n"},
		{strings.Repeat("l\n", 300), strings.Repeat("m\n", 300)}, {"\r\n\n", "\n\r\n"}, {"\xff\n", "\xfe\n"},
	} {
		f.Add(s[0], s[1], uint8(0))
	}
	f.Add("a\nb\nc\nd\n", "d\nc\nb\na\n", uint8(2))
	f.Fuzz(func(t *testing.T, golden, replay string, budget uint8) {
		if budget > 0 {
			defer SetMaxEdits(int(budget % 16))()
		}
		a, b := splitLines(golden), splitLines(replay)
		ops := diffLines(a, b)
		var ga, gb []string
		edits := 0
		for _, o := range ops {
			if o.kind != '+' {
				if o.a != len(ga) || a[o.a] != o.text {
					t.Fatalf("op %+v is not golden line %d", o, len(ga))
				}
				ga = append(ga, o.text)
			}
			if o.kind != '-' {
				if o.b != len(gb) || b[o.b] != o.text {
					t.Fatalf("op %+v is not replay line %d", o, len(gb))
				}
				gb = append(gb, o.text)
			}
			if o.kind != ' ' {
				edits++
			}
		}
		if len(ga) != len(a) || len(gb) != len(b) {
			t.Fatalf("the script gives %d golden and %d replay lines, want %d and %d", len(ga), len(gb), len(a), len(b))
		}
		if budget == 0 && len(a) <= 40 && len(b) <= 40 {
			if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
				t.Fatalf("the script makes %d edits, the shortest %d", edits, want)
			}
		}
		checkUnified(t, golden, replay, a, b)
	})
}

// checkUnified holds Unified's output to FuzzUnified's properties.
func checkUnified(t *testing.T, golden, replay string, a, b []string) {
	out := Unified(golden, replay, 1)
	if (out == "") != (golden == replay) {
		t.Fatalf("Unified is %q for texts equal: %v", out, golden == replay)
	}
	if out == "" {
		return
	}
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); lines[0] != Header || len(lines) > MaxLines+1 {
		t.Fatalf("Unified gives %d lines starting %q", len(lines), lines[0])
	}
	if len(a)+len(b)+2 > MaxLines {
		return
	}
	whole := Unified(golden, replay, len(a)+len(b))
	var ga, gb []string
	for i, l := range strings.Split(strings.TrimSuffix(whole, "\n"), "\n")[2:] {
		if l == "" {
			t.Fatalf("line %d of the diff is empty:\n%s", i+3, whole)
		}
		if l[0] != '+' {
			ga = append(ga, l[1:])
		}
		if l[0] != '-' {
			gb = append(gb, l[1:])
		}
	}
	for side, got := range map[string][]string{"golden": ga, "replay": gb} {
		want := a
		if side == "replay" {
			want = b
		}
		if len(got) != len(want) {
			t.Fatalf("the whole diff shows %d %s lines, want %d:\n%s", len(got), side, len(want), whole)
		}
		for i := range want {
			if got[i] != shown(want[i]) {
				t.Fatalf("the whole diff shows %s line %d as %q, want %q", side, i+1, got[i], shown(want[i]))
			}
		}
	}
}

// lcs is the length of a longest common subsequence of a and b.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
