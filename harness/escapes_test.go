package harness_test

import (
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A transcript quotes what the model said, and a live model can say an
// escape sequence or a carriage return: a failure message shows it as its
// escapes, as agentsnap check and review do, so a terminal running the
// suite neither acts on it nor hides the line a reader is asked to accept.
var _ = Describe("a transcript diff holding terminal escapes, in a failure message", func() {
	It("shows ESC, BEL and CR as \\x1b, \\a and \\r", func() {
		GinkgoT().Setenv("CI", "")
		dir := copyFixture("spawn/one-child")
		editLine(filepath.Join(dir, fixture.GoldenFile), 4, func(string) string { return "  step \x1b]0;owned\a\x1b[2Jone\r" })
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		m := harness.MatchGolden(GinkgoTB())
		ok, err := m.Match(o)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		msg := m.FailureMessage(o)
		Expect(msg).To(ContainSubstring(`-  step \x1b]0;owned\a\x1b[2Jone\r` + "\n+  step 1\n"))
		Expect(strings.ContainsAny(msg, "\x1b\a\r")).To(BeFalse(), msg)
	})
})
