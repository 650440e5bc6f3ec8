package textdiff_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/textdiff"
)

var _ = Describe("Unified at its edges", func() {
	It("merges two changes whose context lines just meet into one hunk", func() {
		// With context 1 the changes at lines 2 and 5 each take one line of
		// the two between them: the hunks touch, so they are one.
		golden := text([]string{"l1", "l2", "l3", "l4", "l5", "l6"})
		replay := text([]string{"l1", "L2", "l3", "l4", "L5", "l6"})
		Expect(textdiff.Unified(golden, replay, 1)).To(Equal(`[diff -golden +replay]
@@ golden line 1, replay line 1 @@
 l1
-l2
+L2
 l3
 l4
-l5
+L5
 l6
`))
	})

	It("shows a diff of exactly MaxLines lines whole", func() {
		added := numbered(textdiff.MaxLines - 2) // the header and the hunk line make MaxLines
		lines := strings.Split(strings.TrimSuffix(textdiff.Unified("", text(added), 3), "\n"), "\n")
		Expect(lines).To(HaveLen(textdiff.MaxLines))
		Expect(lines[len(lines)-1]).To(Equal("+" + added[len(added)-1]))
	})
})
