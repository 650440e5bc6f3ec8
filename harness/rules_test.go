package harness_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// copyAs copies the committed fixture src into a temporary fixtures tree
// as dst (see copyInto).
func copyAs(src, dst string) string { return copyInto(GinkgoT().TempDir(), src, dst) }

// ruleOf returns the built-in rule of category.
func ruleOf(category string) judge.CategoryRule {
	GinkgoHelper()
	for _, r := range judge.CategoryRules {
		if r.Category == category {
			return r
		}
	}
	Fail("no built-in rule for " + category)
	return judge.CategoryRule{}
}

var _ = Describe("category rules", func() {
	// The rules are checked on the recording by MatchRecording (the
	// suites) and by agentsnap check alike: one verdict.
	DescribeTable("pass a scenario that holds what its category requires",
		func(src, dst string) {
			o := replay(copyAs(src, dst))
			Expect(o.RuleViolations).To(BeEmpty())
			Expect(judge.CheckCategory(o.Fixture)).To(BeEmpty())
			Expect(o).To(harness.MatchRecording())
		},
		Entry("fork/: a fork on the parent's first turn, which inherits nothing", "fork/first-turn", "fork/first-turn"),
		Entry("errors/: a failure from the playbook's error answer, no replay.override.json", "errors/playbook-error", "errors/playbook-error"),
		Entry("errors/: a failure from replay.override.json", "errors/throw-midway", "errors/throw-midway"),
		Entry("parallel/: one step delegates to several children", "parallel/fan-out", "parallel/fan-out"),
		Entry("a custom category gets only the common checks: a fork child in billing/", "fork/codeword", "billing/codeword"),
		Entry("a custom category gets only the common checks: billing/refund-flow", "billing/refund-flow", "billing/refund-flow"),
	)

	It("count a first-turn fork as a fork: its child is a fork with an empty seed", func() {
		fx, err := fixture.Load(copyAs("fork/first-turn", "fork/first-turn"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(2))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[1].Header.SeedLength).To(BeZero(), "no turn had completed when it forked")
	})

	It("take an errors/ scenario's failure from its recording, override or not", func() {
		fx, err := fixture.Load(copyAs("errors/playbook-error", "errors/playbook-error"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Override).To(BeNil(), "the failure is in the recorded log, from the playbook")
	})

	DescribeTable("fail a scenario that lacks what its category requires, naming the rule, though the replay matches",
		func(src, dst string) {
			category := filepath.Dir(dst)
			o := replay(copyAs(src, dst))
			Expect(o.Differences).To(BeEmpty())
			Expect(o.Consumption).NotTo(HaveOccurred())
			Expect(o.Passed()).To(BeFalse())
			Expect(o).NotTo(harness.MatchRecording())
			want := "a scenario in " + category + "/ needs " + ruleOf(category).Requires + ", and this recording has not"
			Expect(o.RuleViolations).To(ConsistOf(ContainSubstring(want)))
			Expect(o.Report()).To(ContainSubstring("\ncategory " + category + ":\n  " + want))
		},
		Entry("a fork child under spawn/", "fork/codeword", "spawn/codeword"),
		Entry("spawn/ without any child", "errors/playbook-error", "spawn/playbook-error"),
		Entry("parallel/ children created in different steps", "spawn/two-sequential", "parallel/two-sequential"),
		Entry("parallel/ with two tool calls in one step that create no child", "billing/refund-flow", "parallel/refund-flow"),
		Entry("fork/ without a fork child", "spawn/one-child", "fork/one-child"),
		Entry("mixed/ with spawn children only", "spawn/two-sequential", "mixed/two-sequential"),
		Entry("mixed/ with a fork child only", "fork/codeword", "mixed/codeword"),
		Entry("errors/ where no model call failed", "spawn/one-child", "errors/one-child"),
	)

	// An errors/ recording may show its failure in a model call's finish,
	// in a turn's end, or both; each alone is enough.
	DescribeTable("take an errors/ scenario's failure from a finish or a turn/end alone",
		func(src string, edits ...[3]string) {
			dir := copyAs(src, "errors/edited")
			for _, e := range edits {
				path := filepath.Join(dir, e[0])
				b, err := os.ReadFile(path)
				Expect(err).NotTo(HaveOccurred())
				Expect(strings.Count(string(b), e[1])).To(Equal(1), "%s holds %s once", e[0], e[1])
				Expect(os.WriteFile(path, []byte(strings.Replace(string(b), e[1], e[2], 1)), 0o644)).To(Succeed())
			}
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(judge.CheckCategory(fx)).To(BeEmpty())
		},
		Entry("a finish with an error", "errors/playbook-error",
			[3]string{"session.jsonl", `"reason":{"kind":"error","message":"OVERLOADED: the model is overloaded; try again later"}`, `"reason":{"kind":"completed"}`}),
		Entry("a turn that ended with an error", "errors/playbook-error",
			[3]string{"session.jsonl", `"reason":{"kind":"error","failure":{"message":"the model is overloaded; try again later","code":"OVERLOADED"}}`, `"reason":{"kind":"stop"}`}),
		// The rule skips decoding chunks that cannot be a finish.
		Entry("a finish with an error, its type spelled with an escape", "errors/playbook-error",
			[3]string{"session.jsonl", `"reason":{"kind":"error","message":"OVERLOADED: the model is overloaded; try again later"}`, `"reason":{"kind":"completed"}`},
			[3]string{"session.jsonl", `"chunk":{"type":"finish","reason":{"kind":"error"`, `"chunk":{"type":"fin\u0069sh","reason":{"kind":"error"`}),
		Entry("an aborted finish", "errors/hang-timeout",
			[3]string{"session.jsonl", `"reason":{"kind":"aborted","message":"cancelled between steps"}`, `"reason":{"kind":"completed"}`},
			[3]string{"session.1.jsonl", `"reason":{"kind":"aborted","message":"the model call was aborted"}`, `"reason":{"kind":"completed"}`}),
		Entry("a turn that was aborted", "errors/hang-timeout",
			[3]string{"session.1.jsonl", `"chunk":{"type":"finish","reason":{"kind":"aborted"}}`, `"chunk":{"type":"finish","reason":{"kind":"stop"}}`}),
	)

	It("check every fork child's seed boundary, in any category", func() {
		dir := copyAs("fork/codeword", "billing/codeword")
		editLine(filepath.Join(dir, "session.1.jsonl"), 1, func(l string) string {
			Expect(l).To(ContainSubstring(`"seedLength":12`))
			return strings.Replace(l, `"seedLength":12`, `"seedLength":6`, 1)
		})
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(judge.CheckCategory(fx)).To(ConsistOf(
			filepath.Join(dir, "session.1.jsonl") + ": seedLength 6 ends the inherited prefix at seq 5 (assistant/chunk), not right after a turn/end: the seed boundary must fall between turns; the runtime must stamp seedLength at the end of the parent's last completed turn"))
	})

	// A child cut right after its seed (it crashed before its own turn
	// began) has a seed as long as its log: its last event must still be
	// a turn/end.
	It("check the seed boundary of a fork child whose log is all seed", func() {
		dir := copyAs("fork/codeword", "billing/codeword")
		path := filepath.Join(dir, "session.1.jsonl")
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		lines := strings.SplitAfter(string(b), "\n")
		Expect(lines[0]).To(ContainSubstring(`"seedLength":12`))
		lines[0] = strings.Replace(lines[0], `"seedLength":12`, `"seedLength":6`, 1)
		Expect(os.WriteFile(path, []byte(strings.Join(lines[:7], "")), 0o644)).To(Succeed())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs[1].Events).To(HaveLen(6), "the log is its seed and nothing more")
		Expect(judge.CheckCategory(fx)).To(ConsistOf(
			path + ": seedLength 6 ends the inherited prefix at seq 5 (assistant/chunk), not right after a turn/end: the seed boundary must fall between turns; the runtime must stamp seedLength at the end of the parent's last completed turn"))
	})

	It("are listed in the README, each rule's sentence verbatim", func() {
		b, err := os.ReadFile(filepath.Join("..", "README.md"))
		Expect(err).NotTo(HaveOccurred())
		readme := strings.Join(strings.Fields(string(b)), " ") // the README wraps its lines
		Expect(judge.CategoryRules).NotTo(BeEmpty())
		for _, r := range judge.CategoryRules {
			Expect(readme).To(ContainSubstring("`"+r.Category+"/`"), "the README names the category %s/", r.Category)
			Expect(readme).To(ContainSubstring(r.Requires), "the README states the rule of %s/", r.Category)
		}
	})
})
