package textdiff_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/textdiff"
)

// numbered returns n lines "line 1" ... "line n", each ending in a newline.
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d", i+1)
	}
	return out
}

// text joins lines, each ending in a newline; no lines is the empty text.
func text(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// sides rebuilds golden and replay from a diff printed with context enough
// to hold every line in one hunk.
func sides(diff string) (golden, replay []string) {
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n")[2:] {
		body := l[1:]
		switch l[0] {
		case ' ':
			golden, replay = append(golden, body), append(replay, body)
		case '-':
			golden = append(golden, body)
		case '+':
			replay = append(replay, body)
		}
	}
	return golden, replay
}

// lcsLen is the textbook quadratic longest common subsequence length, an
// independent check that the diff is a shortest one.
func lcsLen(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

var _ = Describe("Unified", func() {
	DescribeTable("returns nothing for equal inputs",
		func(s string) { Expect(textdiff.Unified(s, s, 3)).To(BeEmpty()) },
		Entry("empty", ""),
		Entry("one line", "a\n"),
		Entry("no final newline", "a\nb"),
	)

	It("starts with the header and shows the golden side as - and the replay as +", func() {
		Expect(textdiff.Unified("a\nold\nc\n", "a\nnew\nc\n", 3)).To(Equal(`[diff -golden +replay]
@@ golden line 1, replay line 1 @@
 a
-old
+new
 c
`))
	})

	It("puts context around each change and numbers each hunk's first line on both sides", func() {
		golden := numbered(20)
		replay := append([]string{"line 0"}, numbered(20)...) // one line added on top
		replay[16] = "line sixteen"                           // and golden's line 16 changed
		Expect(textdiff.Unified(text(golden), text(replay), 2)).To(Equal(`[diff -golden +replay]
@@ golden line 1, replay line 1 @@
+line 0
 line 1
 line 2
@@ golden line 14, replay line 15 @@
 line 14
 line 15
-line 16
+line sixteen
 line 17
 line 18
`))
	})

	It("merges changes whose context would overlap into one hunk", func() {
		golden := numbered(10)
		replay := numbered(10)
		replay[3], replay[7] = "four", "eight"
		Expect(textdiff.Unified(text(golden), text(replay), 2)).To(Equal(`[diff -golden +replay]
@@ golden line 2, replay line 2 @@
 line 2
 line 3
-line 4
+four
 line 5
 line 6
 line 7
-line 8
+eight
 line 9
 line 10
`))
	})

	It("shows only the changed lines with no context, and treats a negative context as none", func() {
		want := `[diff -golden +replay]
@@ golden line 2, replay line 2 @@
-b
+B
`
		Expect(textdiff.Unified("a\nb\nc\n", "a\nB\nc\n", 0)).To(Equal(want))
		Expect(textdiff.Unified("a\nb\nc\n", "a\nB\nc\n", -4)).To(Equal(want))
	})

	DescribeTable("marks a last line without a newline",
		func(golden, replay, want string) {
			Expect(textdiff.Unified(golden, replay, 1)).To(Equal("[diff -golden +replay]\n" + want))
		},
		Entry("only in the golden", "a\nb", "a\nb\n", "@@ golden line 1, replay line 1 @@\n a\n-b (no newline at end)\n+b\n"),
		Entry("only in the replay", "a\nb\n", "a\nb", "@@ golden line 1, replay line 1 @@\n a\n-b\n+b (no newline at end)\n"),
		Entry("a golden that is empty", "", "x", "@@ golden line 1, replay line 1 @@\n+x (no newline at end)\n"),
		Entry("a replay whose line reads as the mark", "a", "a (no newline at end)\n",
			"@@ golden line 1, replay line 1 @@\n-a (no newline at end)\n+a (no newline at end)\n"),
	)

	It("cuts a diff longer than MaxLines and says how to see it all", func() {
		golden, replay := make([]string, 300), make([]string, 300)
		for i := range golden {
			golden[i], replay[i] = fmt.Sprintf("g%d", i), fmt.Sprintf("r%d", i)
		}
		lines := strings.Split(strings.TrimSuffix(textdiff.Unified(text(golden), text(replay), 3), "\n"), "\n")
		Expect(lines).To(HaveLen(textdiff.MaxLines + 1))
		Expect(lines[0]).To(Equal(textdiff.Header))
		// 1 header, 1 hunk header and 600 changed lines, of which MaxLines are shown.
		Expect(lines[textdiff.MaxLines]).To(Equal(fmt.Sprintf(
			"... %d more diff lines not shown; compare the files with: diff -u GOLDEN REPLAY", 602-textdiff.MaxLines)))
	})

	It("keeps two small changes far apart in a long input as two small hunks", func() {
		golden := numbered(5000)
		replay := numbered(5000)
		replay[9], replay[4989] = "ten", "four thousand nine hundred ninety"
		Expect(textdiff.Unified(text(golden), text(replay), 1)).To(Equal(`[diff -golden +replay]
@@ golden line 9, replay line 9 @@
 line 9
-line 10
+ten
 line 11
@@ golden line 4989, replay line 4989 @@
 line 4989
-line 4990
+four thousand nine hundred ninety
 line 4991
`))
	})

	It("falls back to all removed, all added when the inputs differ in more lines than the edit budget", func() {
		golden, replay := "same\na\nb\nc\nd\n", "same\nx\nb\ny\nd\n" // 4 edits
		Expect(textdiff.Unified(golden, replay, 1)).To(Equal(`[diff -golden +replay]
@@ golden line 1, replay line 1 @@
 same
-a
+x
 b
-c
+y
 d
`), "within the budget: a shortest diff that keeps b")

		DeferCleanup(textdiff.SetMaxEdits(3))
		Expect(textdiff.Unified(golden, replay, 1)).To(Equal(`[diff -golden +replay]
@@ golden line 1, replay line 1 @@
 same
-a
-b
-c
+x
+b
+y
 d
`), "over the budget: still correct, no longer shortest")
	})

	It("gives a shortest edit script that rebuilds both sides, for many random pairs", func() {
		rng := rand.New(rand.NewPCG(1, 2))
		random := func() []string {
			out := make([]string, rng.IntN(30))
			for i := range out {
				out[i] = string(rune('a' + rng.IntN(4))) // few distinct lines: many matches
			}
			return out
		}
		for range 300 {
			a, b := random(), random()
			diff := textdiff.Unified(text(a), text(b), 1<<20)
			if text(a) == text(b) {
				Expect(diff).To(BeEmpty())
				continue
			}
			golden, replay := sides(diff)
			Expect(text(golden)).To(Equal(text(a)), "golden side of\n%s", diff)
			Expect(text(replay)).To(Equal(text(b)), "replay side of\n%s", diff)
			edits := strings.Count(diff, "\n-") + strings.Count(diff, "\n+")
			Expect(edits).To(Equal(len(a)+len(b)-2*lcsLen(a, b)), "not a shortest diff:\n%s", diff)
		}
	})
})
