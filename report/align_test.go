package report_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
)

// unchanged are the rows of the sessions no variant touches.
var unchanged = []string{
	"session 1 same: turn 1 (subagent) | turn 1 (subagent)",
	"session 1 same: turn 1 step 1 | turn 1 step 1",
	"session 1 same: turn 1 ended completed | turn 1 ended completed",
	"session 2 seed same: turn 1 (user) | turn 1 (user)",
	"session 2 seed same: turn 1 step 1 | turn 1 step 1",
	"session 2 seed same: turn 1 ended completed | turn 1 ended completed",
	"session 2 same: turn 2 (subagent) | turn 2 (subagent)",
	"session 2 same: turn 2 step 1 | turn 2 step 1",
	"session 2 same: turn 2 ended completed | turn 2 ended completed",
}

// rootTurn1 are the root's rows up to its second turn's first step.
var rootTurn1 = []string{
	"root same: turn 1 (user) | turn 1 (user)",
	"root same: turn 1 step 1 | turn 1 step 1",
	"root same: turn 1 ended completed | turn 1 ended completed",
	"root same: turn 2 (user) | turn 2 (user)",
	"root same: turn 2 step 1 | turn 2 step 1",
}

func rows(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func firstDivergences(rows []string) []string {
	var out []string
	for _, r := range rows {
		if strings.HasSuffix(r, "<- first divergence") {
			out = append(out, r)
		}
	}
	return out
}

var _ = Describe("alignment of golden and replay", func() {
	It("shows an inserted step as a gap on the golden side and keeps the later steps paired", func() {
		got := report.AlignRows(spawnThenFork(variant{}), spawnThenFork(variant{insertStep: true}))
		// The fork and answer steps are renumbered (2->3, 3->4) and their
		// requests carry two more messages, but they still pair with their
		// golden counterparts instead of shifting by one.
		Expect(got).To(Equal(rows(rootTurn1, []string{
			"root added: - | turn 2 step 2 <- first divergence",
			"root changed: turn 2 step 2 | turn 2 step 3",
			"root changed: turn 2 step 3 | turn 2 step 4",
			"root same: turn 2 ended completed | turn 2 ended completed",
		}, unchanged)))
	})

	It("shows a removed step as a gap on the replay side", func() {
		got := report.AlignRows(spawnThenFork(variant{insertStep: true}), spawnThenFork(variant{}))
		Expect(got).To(Equal(rows(rootTurn1, []string{
			"root removed: turn 2 step 2 | - <- first divergence",
			"root changed: turn 2 step 3 | turn 2 step 2",
			"root changed: turn 2 step 4 | turn 2 step 3",
			"root same: turn 2 ended completed | turn 2 ended completed",
		}, unchanged)))
	})

	It("marks the first differing text as the first divergence, and only the lines that differ", func() {
		golden, replay := spawnThenFork(variant{}), spawnThenFork(variant{answer: "DONE: ALPHA, <SAFFRON>"})
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"root changed: turn 2 step 3 | turn 2 step 3 <- first divergence"}))
		Expect(got).To(ContainElements(rootTurn1))
		Expect(got).To(ContainElements(unchanged))
		Expect(report.ChangedItems(golden, replay)).To(ConsistOf(
			"golden assistant: DONE: ALPHA, SAFFRON",
			"replay assistant: DONE: ALPHA, <SAFFRON>",
		))
	})

	It("puts a difference in an earlier session before one in a later session", func() {
		got := report.AlignRows(spawnThenFork(variant{}), spawnThenFork(variant{userText: "The secret word is SAGE.", answer: "DONE: ALPHA, SAGE"}))
		Expect(firstDivergences(got)).To(Equal([]string{"root changed: turn 1 (user) | turn 1 (user) <- first divergence"}))
		// The fork child inherited the changed prompt: its seed differs too.
		Expect(got).To(ContainElement("session 2 seed changed: turn 1 (user) | turn 1 (user)"))
	})

	It("makes a changed seedLength the first divergence of the fork child", func() {
		golden := spawnThenFork(variant{})
		replay := spawnThenFork(variant{seedLength: golden[2].Header.SeedLength - 1})
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"session 2 header changed <- first divergence"}))
		// The turn/end that left the seed shows as a gap in the replay's seed.
		Expect(got).To(ContainElement("session 2 seed removed: turn 1 ended completed | -"))
	})

	It("shows a session missing from the replay as removed, and pairs the root's answers", func() {
		got := report.AlignRows(spawnThenFork(variant{}), spawnThenFork(variant{noFork: true}))
		Expect(firstDivergences(got)).To(Equal([]string{"root removed: turn 2 step 2 | - <- first divergence"}))
		Expect(got).To(ContainElements(
			"root changed: turn 2 step 3 | turn 2 step 2",
			"session 2 removed: turn 2 (subagent) | -",
		))
	})

	It("finds no divergence in identical runs", func() {
		got := report.AlignRows(spawnThenFork(variant{}), spawnThenFork(variant{}))
		Expect(firstDivergences(got)).To(BeEmpty())
		Expect(got).To(HaveEach(ContainSubstring(" same: ")))
	})

	DescribeTable("transcript lines",
		func(golden, replay string, want []string) {
			Expect(report.AlignTranscript(golden, replay)).To(Equal(want))
		},
		Entry("an inserted line is a gap on the golden side", "a\nb\nc\n", "a\nx\nb\nc\n",
			[]string{"same: a | a", "added: - | x", "same: b | b", "same: c | c"}),
		Entry("a removed line is a gap on the replay side", "a\nb\nc\n", "a\nc\n",
			[]string{"same: a | a", "removed: b | -", "same: c | c"}),
		Entry("a changed line pairs with its replacement", "a\nb\nc\n", "a\nB\nc\n",
			[]string{"same: a | a", "changed: b | B", "same: c | c"}),
		Entry("an empty golden is all added", "", "a\n", []string{"added: - | a"}),
	)
})
