package judge_test

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A golden is compared byte for byte: a final newline more or less is a
// change in what the agent wrote (a reply that now ends in a blank line),
// and the transcript waits beside the golden for review.
var _ = Describe("comparing with a golden that differs only at its end", func() {
	const transcript = "== root ==\nuser: hi\nassistant: hello\n"

	DescribeTable("fails and proposes the transcript",
		func(golden string) {
			GinkgoT().Setenv("CI", "")
			GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
			dir := GinkgoT().TempDir()
			path := filepath.Join(dir, fixture.GoldenFile)
			Expect(os.WriteFile(path, []byte(golden), 0o644)).To(Succeed())
			o := &judge.Outcome{
				Fixture:    &fixture.Fixture{Name: "t/ending", Dir: dir, Golden: path, Scenario: &scenario.Scenario{}},
				Transcript: transcript,
			}
			res := judge.CompareGolden(o)
			Expect(res.Message).To(HavePrefix("t/ending: the transcript differs from " + path))
			Expect(res.Pending).To(Equal(path + judge.ProposalSuffix))
			Expect(os.ReadFile(res.Pending)).To(Equal([]byte(transcript)))
			Expect(os.ReadFile(path)).To(Equal([]byte(golden)), "the golden itself is left as it was")
		},
		Entry("a golden without the final newline", "== root ==\nuser: hi\nassistant: hello"),
		Entry("a golden with a blank line more at its end", transcript+"\n"),
	)
})

// CI is on when it holds a true value, as CI services set it: CI=false
// (or 0, no, off) is a developer's machine, where -update writes goldens.
var _ = Describe("updating a golden with CI set to a false value", func() {
	DescribeTable("writes it, as without CI",
		func(ci string) {
			GinkgoT().Setenv("CI", ci)
			GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
			Expect(judge.UpdateRefusal()).To(BeEmpty())
			dir := GinkgoT().TempDir()
			path := filepath.Join(dir, fixture.GoldenFile)
			Expect(os.WriteFile(path, []byte("== root ==\nold\n"), 0o644)).To(Succeed())
			o := &judge.Outcome{
				Fixture:    &fixture.Fixture{Name: "t/ci", Dir: dir, Golden: path, Scenario: &scenario.Scenario{}},
				Transcript: "== root ==\nnew\n",
			}
			res := judge.UpdateGolden(o)
			Expect(res.Message).To(BeEmpty())
			Expect(res.Updated).To(BeTrue())
			Expect(os.ReadFile(path)).To(Equal([]byte(o.Transcript)))
		},
		Entry("false", "false"),
		Entry("0", "0"),
		Entry("off", " OFF "),
	)

	It("refuses under CI=true", func() {
		GinkgoT().Setenv("CI", "true")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		Expect(judge.UpdateRefusal()).To(ContainSubstring("refusing to update goldens with CI=true"))
	})
})
