package harness_test

import (
	"regexp"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// thisSpecFocus is the focus a failure message gives for the running spec.
func thisSpecFocus() string {
	return judge.ShellQuote(harness.GinkgoFocus(CurrentSpecReport().FullText(), nil))
}

// Ginkgo matches a focus against the suite's description, a space and the
// spec's full text (its containers' texts and its own, joined by spaces).
var _ = Describe("the focus of the command that reruns a Ginkgo spec", func() {
	matched := func(focus, description, text string) bool {
		return regexp.MustCompile(focus).MatchString(description + " " + text)
	}

	It("runs the failing spec and not one whose text only starts or ends like it", func() {
		fx := &fixture.Fixture{Name: "mixed/desk"}
		focus := harness.GinkgoFocus("mixed scenarios mixed/desk", fx)
		Expect(matched(focus, "mixed", "mixed scenarios mixed/desk")).To(BeTrue())
		Expect(matched(focus, "mixed", "mixed scenarios mixed/desk-gemini")).To(BeFalse())
		Expect(matched(focus, "mixed", "other mixed scenarios xmixed/desk")).To(BeFalse())
		Expect(matched(focus, "", "mixed scenarios mixed/desk")).To(BeTrue(), "a suite without a description")

		By("quoting what a regular expression would read otherwise")
		focus = harness.GinkgoFocus("scenarios fork/a+b (1)", fx)
		Expect(matched(focus, "s", "scenarios fork/a+b (1)")).To(BeTrue())
		Expect(matched(focus, "s", "scenarios fork/aab 1")).To(BeFalse())

		By("falling back to the fixture's name for a spec without text")
		Expect(matched(harness.GinkgoFocus("", fx), "s", "mixed scenarios mixed/desk")).To(BeTrue())
		Expect(matched(harness.GinkgoFocus("", fx), "s", "mixed scenarios mixed/desk-gemini")).To(BeFalse())
	})

	It("is the running spec's, and matches it the way Ginkgo does", func() {
		DeferCleanup(harness.SetGinkgoTool(false))
		GinkgoT().Setenv("CI", "")
		dir := copyFixture("spawn/one-child")
		editLine(dir+"/"+fixture.GoldenFile, 4, func(string) string { return "  step one" })
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		m := harness.MatchGolden(GinkgoTB())
		ok, err := m.Match(o)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		msg := m.FailureMessage(o)
		_, after, found := strings.Cut(msg, "go test ./harness -ginkgo.focus=")
		Expect(found).To(BeTrue(), msg)
		quoted, _, _ := strings.Cut(after, " -update")
		Expect(quoted).To(HavePrefix("'"))
		focus := strings.ReplaceAll(strings.Trim(quoted, "'"), `'\''`, "'")
		Expect(matched(focus, "harness", CurrentSpecReport().FullText())).To(BeTrue(), focus)
		Expect(matched(focus, "harness", CurrentSpecReport().FullText()+"-gemini")).To(BeFalse(), focus)
	})
})
