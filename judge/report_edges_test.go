package judge_test

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
)

// A replay that matches its recording, of a recording that breaks its
// category's rules, fails on the rules: its report opens with them, not
// with a replay that does not match.
var _ = Describe("the report of a replay that fails on its rules only", func() {
	const rule = "a scenario in fork/ needs at least one fork child, and this recording has not (root only); record another path, or move the scenario to the category it fits"
	outcome := func() *judge.Outcome {
		dir := filepath.Join(GinkgoT().TempDir(), "fork", "no-child")
		fx := &fixture.Fixture{Name: "fork/no-child", Dir: dir, Golden: filepath.Join(dir, fixture.GoldenFile), Scenario: &scenario.Scenario{}}
		return &judge.Outcome{Fixture: fx, RuleViolations: []string{rule}}
	}

	It("opens with the rule that failed and says the replay matches", func() {
		o := outcome()
		report := o.Report()
		first, _, _ := strings.Cut(report, "\n")
		Expect(first).To(Equal("fork/no-child: the recording in " + o.Fixture.Dir + " breaks 1 rule of category fork (its replay matches it)"))
		Expect(report).NotTo(ContainSubstring("does not match"))
		Expect(report).To(ContainSubstring("\ncategory fork:\n  " + rule + "\n"))
		Expect(report).To(ContainSubstring("Once the agent, or the scenario's prompts or playbook, takes a path that keeps the rules above, re-record the scenario:\n  "))
		Expect(report).NotTo(ContainSubstring("If the change is intended"))

		err := o.Err()
		Expect(err).To(MatchError(judge.ErrMismatch))
		Expect(err.Error()).To(HavePrefix("the recording breaks its rules:\nfork/no-child: the recording in "))
		Expect(err.Error()).NotTo(ContainSubstring("does not match"))
	})

	It("opens with the replay when it does not match too", func() {
		o := outcome()
		o.Differences = []judge.Difference{{Session: "root", Lineage: "root session", Seq: 0, Type: "x/note", Field: "data.s", Golden: `"a"`, Replay: `"b"`}}
		Expect(o.Report()).To(HavePrefix("fork/no-child: the replay does not match the recording in " + o.Fixture.Dir + "\n"))
		Expect(o.Report()).To(ContainSubstring("\ncategory fork:\n  " + rule + "\n"))
		Expect(o.Err().Error()).To(HavePrefix("replay does not match the recording:\n"))
	})

	It("refuses a golden update for the rules, not for a replay that fails", func() {
		GinkgoT().Setenv("CI", "") // an update outside CI
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		o := outcome()
		res := judge.UpdateGolden(o)
		Expect(res.Updated).To(BeFalse())
		Expect(res.Message).To(HavePrefix("judge: not updating " + o.Fixture.Golden + ": "))
		Expect(res.Message).To(ContainSubstring(": the recording breaks its rules, and goldens are only rewritten from a recording that keeps them:\nfork/no-child: the recording in "))
		Expect(res.Message).NotTo(ContainSubstring("the replay itself fails"))
	})
})
