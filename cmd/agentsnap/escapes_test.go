package main

import (
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A transcript quotes what the model said; a live model can say an escape
// sequence or a carriage return. check and review print it as its escapes,
// so the terminal neither acts on it nor hides the line a reader accepts.
var _ = Describe("an answer holding terminal escapes, in check's and review's text", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "") // check writes the proposal review shows
	})

	It("shows ESC, BEL and CR as \\x1b, \\a and \\r in check's diff and review's, and accepts the proposal's bytes", func() {
		root := fixtureCopy("spawn/one-child")
		golden := filepath.Join(root, "fixtures/spawn/one-child", fixture.GoldenFile)
		// The golden said something else: the replay's transcript becomes
		// the proposal, and the golden's line shows in the diff.
		const said = "assistant: \x1b]0;owned\a\x1b[32mAll checks passed\x1b[0m\r The largest planet is Jupiter."
		replaceIn(golden, "assistant: The largest planet is Jupiter.", said)
		const shown = `assistant: \x1b]0;owned\a\x1b[32mAll checks passed\x1b[0m\r The largest planet is Jupiter.`

		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(ContainSubstring("-    " + shown + "\n+    assistant: The largest planet is Jupiter.\n"))
		Expect(r.stdout).NotTo(ContainAny("\x1b\a\r"))

		r = reviewCLI(root, "a\n", nil, "review")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("-    " + shown + "\n"))
		Expect(r.stdout).NotTo(ContainAny("\x1b\a\r"))
		Expect(readFile(golden)).NotTo(ContainSubstring("owned"), "the proposal, as replayed, is the golden now")
	})

	It("keeps a diff's tabs and lines as they are", func() {
		Expect(printableLines("-  a\tb\n+  a b\n")).To(Equal("-  a\tb\n+  a b\n"))
		Expect(printableLines("x\ry\n\x1b")).To(Equal(`x\ry` + "\n" + `\x1b`))
	})
})

// ContainAny matches a string that holds any of chars' runes.
func ContainAny(chars string) OmegaMatcher {
	return WithTransform(func(s string) bool { return strings.ContainsAny(s, chars) }, BeTrue())
}
