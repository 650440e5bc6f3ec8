package judge_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
)

// A golden that is missing is a difference, whatever the transcript, and
// the message says why no proposal was written beside it.
var _ = Describe("comparing with a golden that is missing", func() {
	It("fails a replay that rendered nothing, naming the missing golden and why nothing was proposed", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		o := &judge.Outcome{
			Fixture: &fixture.Fixture{Name: "t/missing", Dir: dir, Golden: filepath.Join(dir, fixture.GoldenFile), Scenario: &scenario.Scenario{}},
			Differences: []judge.Difference{{Session: "root", Lineage: "root session", Seq: -1,
				Note: "the replay never created this session (recorded as root)"}},
		}
		res := judge.CompareGolden(o)
		Expect(res.Message).To(ContainSubstring("is missing"))
		Expect(res.Message).To(ContainSubstring("no golden proposal written: the replay itself does not match its recording"))
		Expect(res.Pending).To(BeEmpty())
		Expect(filepath.Join(dir, fixture.GoldenFile+judge.ProposalSuffix)).NotTo(BeAnExistingFile())
	})
})

// A golden the transcript matches still fails when the stale proposal
// beside it cannot be removed; the message says so once.
var _ = Describe("comparing with a golden beside a stale proposal that cannot be removed", func() {
	It("says once why the proposal stays", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		golden := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.WriteFile(golden, []byte("== root ==\n"), 0o644)).To(Succeed())
		// A folder where the proposal would be, not empty: os.Remove fails.
		proposal := golden + judge.ProposalSuffix
		Expect(os.MkdirAll(filepath.Join(proposal, "x"), 0o755)).To(Succeed())
		o := &judge.Outcome{
			Fixture:    &fixture.Fixture{Name: "t/stale", Dir: dir, Golden: golden, Scenario: &scenario.Scenario{}},
			Transcript: "== root ==\n",
		}
		res := judge.CompareGolden(o)
		Expect(res.Message).To(ContainSubstring("removing the stale proposal " + proposal))
		Expect(strings.Count(res.Message, "removing the stale proposal")).To(Equal(1), res.Message)
	})
})

// A golden no scenario checked is obsolete only when every scenario under
// the roots ran; a filtered run says nothing of the goldens it skipped.
var _ = Describe("the summary of the goldens a run checked", func() {
	It("names a golden no scenario checked only when the run was unfiltered", func() {
		root := GinkgoT().TempDir()
		unchecked := filepath.Join(root, "spawn", "gone", fixture.GoldenFile)
		Expect(os.MkdirAll(filepath.Dir(unchecked), 0o755)).To(Succeed())
		Expect(os.WriteFile(unchecked, []byte("== root ==\n"), 0o644)).To(Succeed())
		Expect(judge.GoldenSummary(true, root)).To(ContainSubstring("golden obsolete: " + unchecked + " (no scenario checks it"))
		Expect(judge.GoldenSummary(false, root)).NotTo(ContainSubstring("golden obsolete"))
	})
})
