package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// compareWith is one way a golden is compared: the suites' matcher, or the
// CLI's CompareGolden. It returns the failure message, "" on success.
type compareWith func(o *harness.Outcome) string

func throughMatcher(o *harness.Outcome) string {
	m := harness.MatchGolden(GinkgoTB())
	ok, err := m.Match(o)
	Expect(err).NotTo(HaveOccurred())
	if ok {
		return ""
	}
	return m.FailureMessage(o)
}

func throughCompare(o *harness.Outcome) string { return judge.CompareGolden(o).Message }

var _ = Describe("pending goldens", func() {
	var dir, golden, proposal string
	BeforeEach(func() {
		dir = copyFixture("spawn/one-child")
		golden = filepath.Join(dir, fixture.GoldenFile)
		proposal = golden + ".new"
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		DeferCleanup(harness.SetUpdate(false))
	})

	// changeGolden edits the golden so the replay differs from it, and
	// returns its new content.
	changeGolden := func() []byte {
		GinkgoHelper()
		editLine(golden, 4, func(string) string { return "  step one" })
		b, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		return b
	}

	DescribeTable("are written beside the golden when a matching replay's transcript differs, never over it",
		func(compare compareWith) {
			changed := changeGolden()
			o := replay(dir)
			Expect(o.Passed()).To(BeTrue())
			msg := compare(o)
			Expect(msg).To(ContainSubstring("the transcript differs from " + golden))
			Expect(msg).To(ContainSubstring("or accept the proposal written beside it, " + proposal + ", after reviewing it with:\n  go tool agentsnap review " + dir))
			Expect(os.ReadFile(proposal)).To(Equal([]byte(o.Transcript)))
			Expect(os.ReadFile(golden)).To(Equal(changed), "the golden is never replaced")
			leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
			Expect(leftovers).To(BeEmpty(), "written atomically: no temporary file left")
			Expect(judge.GoldenSummary(false)).To(ContainSubstring("golden pending:  " + proposal + "\n"))
		},
		Entry("by the suites' MatchGolden", compareWith(throughMatcher)),
		Entry("by agentsnap check's CompareGolden", compareWith(throughCompare)),
	)

	DescribeTable("are not written for a replay that does not match its recording",
		func(compare compareWith) {
			changeGolden()
			editLine(filepath.Join(dir, "session.1.jsonl"), 3, func(l string) string { return strings.Replace(l, "largest", "smallest", 1) })
			o := replay(dir)
			Expect(o.Passed()).To(BeFalse())
			Expect(compare(o)).To(ContainSubstring("no golden proposal written: the replay itself does not match its recording"))
			Expect(proposal).NotTo(BeAnExistingFile())
		},
		Entry("by the suites' MatchGolden", compareWith(throughMatcher)),
		Entry("by agentsnap check's CompareGolden", compareWith(throughCompare)),
	)

	DescribeTable("are neither written nor removed under CI",
		func(compare compareWith) {
			GinkgoT().Setenv("CI", "true")
			changeGolden()
			Expect(compare(replay(dir))).NotTo(ContainSubstring("proposal"))
			Expect(proposal).NotTo(BeAnExistingFile())

			Expect(os.WriteFile(proposal, []byte("stale"), 0o644)).To(Succeed())
			Expect(os.WriteFile(golden, []byte(replay(dir).Transcript), 0o644)).To(Succeed())
			Expect(compare(replay(dir))).To(BeEmpty())
			Expect(os.ReadFile(proposal)).To(Equal([]byte("stale")), "CI touches no file")
		},
		Entry("by the suites' MatchGolden", compareWith(throughMatcher)),
		Entry("by agentsnap check's CompareGolden", compareWith(throughCompare)),
	)

	DescribeTable("are removed when the transcript matches the golden again",
		func(compare compareWith) {
			Expect(os.WriteFile(proposal, []byte("a stale proposal\n"), 0o644)).To(Succeed())
			Expect(compare(replay(dir))).To(BeEmpty())
			Expect(proposal).NotTo(BeAnExistingFile())
		},
		Entry("by the suites' MatchGolden", compareWith(throughMatcher)),
		Entry("by agentsnap check's CompareGolden", compareWith(throughCompare)),
	)

	It("are removed when a later replay of the same loaded fixture matches, though none was listed when it was loaded", func() {
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.ProposalUnlisted()).To(BeTrue())
		first, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		first.Transcript += "a line the golden lacks\n"
		Expect(judge.CompareGolden(first).Message).To(ContainSubstring("the transcript differs"))
		Expect(proposal).To(BeAnExistingFile())

		again, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(judge.CompareGolden(again).Message).To(BeEmpty())
		Expect(proposal).NotTo(BeAnExistingFile())
	})

	It("are not touched by DiffGolden, the report's comparison", func() {
		changeGolden()
		res := judge.DiffGolden(replay(dir))
		Expect(res.Message).To(ContainSubstring("the transcript differs"))
		Expect(res.Pending).To(BeEmpty())
		Expect(proposal).NotTo(BeAnExistingFile())
	})

	It("are removed by -update, which writes the golden", func() {
		changeGolden()
		o := replay(dir)
		Expect(throughMatcher(o)).NotTo(BeEmpty())
		Expect(proposal).To(BeAnExistingFile())

		DeferCleanup(harness.SetUpdate(true))
		Expect(replay(dir)).To(harness.MatchGolden(GinkgoTB()))
		Expect(os.ReadFile(golden)).To(Equal([]byte(o.Transcript)))
		Expect(proposal).NotTo(BeAnExistingFile())

		Expect(os.WriteFile(proposal, []byte("stale"), 0o644)).To(Succeed())
		res := judge.UpdateGolden(replay(dir))
		Expect(res.Updated).To(BeFalse(), "the golden already matched")
		Expect(proposal).NotTo(BeAnExistingFile(), "a golden that matches settles its proposal too")
	})

	It("are proposed for a missing golden, which review then creates", func() {
		Expect(os.Remove(golden)).To(Succeed())
		o := replay(dir)
		res := judge.CompareGolden(o)
		Expect(res.Message).To(ContainSubstring("transcript.golden is missing"))
		Expect(res.Pending).To(Equal(proposal))
		Expect(os.ReadFile(proposal)).To(Equal([]byte(o.Transcript)))
	})

	It("are listed after a suite when they lie under its fixtures, whoever wrote them", func() {
		root := filepath.Dir(filepath.Dir(dir))
		Expect(os.WriteFile(proposal, []byte("from an earlier run\n"), 0o644)).To(Succeed())
		summary := judge.GoldenSummary(false, root)
		Expect(summary).To(ContainSubstring("golden pending:  " + proposal + "\n"))
		Expect(summary).To(ContainSubstring("accept or reject them with: go tool agentsnap review " + dir + ")"))
		Expect(fixture.FindProposals(root)).To(Equal([]string{proposal}))
	})
})
