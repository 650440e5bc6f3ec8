package harness_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A Ginkgo spec's failure reruns it the way the user's module can: go
// tool ginkgo needs the ginkgo tool in go.mod, which a module that only
// imports Ginkgo lacks ("go: no such tool").
var _ = Describe("the command that reruns a Ginkgo spec", func() {
	update := func() string {
		GinkgoHelper()
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := copyFixture("spawn/one-child")
		editLine(filepath.Join(dir, fixture.GoldenFile), 4, func(string) string { return "  step one" })
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		m := harness.MatchGolden(GinkgoTB())
		ok, err := m.Match(o)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		return m.FailureMessage(o)
	}

	It("is go test with -ginkgo.focus when the module has no ginkgo tool", func() {
		DeferCleanup(harness.SetGinkgoTool(false))
		Expect(update()).To(ContainSubstring("update the golden with:\n  go test ./harness -ginkgo.focus=" + thisSpecFocus() + " -update\n"))
	})

	It("is go tool ginkgo when it has", func() {
		DeferCleanup(harness.SetGinkgoTool(true))
		Expect(update()).To(ContainSubstring("update the golden with:\n  go tool ginkgo --focus=" + thisSpecFocus() + " ./harness -- -update\n"))
	})

	DescribeTable("reading the tool directives of go.mod",
		func(gomod string, want bool) {
			Expect(harness.DeclaresTool(gomod, "github.com/onsi/ginkgo/v2/ginkgo")).To(Equal(want))
		},
		Entry("in a block", "module m\n\ntool (\n\tgithub.com/x/y\n\tgithub.com/onsi/ginkgo/v2/ginkgo\n)\n", true),
		Entry("on one line, with a comment", "module m\ntool github.com/onsi/ginkgo/v2/ginkgo // tests\n", true),
		Entry("required only", "module m\nrequire github.com/onsi/ginkgo/v2 v2.34.0\n", false),
		Entry("another tool", "module m\ntool github.com/agentsnap/agentsnap/cmd/agentsnap\n", false),
		Entry("in a require block", "module m\nrequire (\n\tgithub.com/onsi/ginkgo/v2/ginkgo v1.0.0\n)\n", false),
	)
})

// A test whose fixture does not load or replay ends its message with the
// re-recording where a recording mends the fixture, and only there.
var _ = Describe("the re-recording a test's fixture error offers", func() {
	run := func(dir string) string {
		GinkgoHelper()
		t := &fatalTB{TB: GinkgoTB()}
		Expect(harness.Run(t, dir, harness.Options{Runtime: agent.Reference})).To(BeNil())
		Expect(t.fatals).To(HaveLen(1))
		return t.fatals[0]
	}

	It("is offered for a log the replay cannot derive", func() {
		dir := copyFixture("fork/codeword")
		editLine(filepath.Join(dir, fixture.RootLog), 9, func(l string) string {
			Expect(l).To(ContainSubstring(`"inputTokens":68`))
			return strings.Replace(l, `"inputTokens":68`, `"inputTokens":-68`, 1)
		})
		msg := run(dir)
		Expect(msg).To(ContainSubstring(`"usage.inputTokens" is -68`))
		Expect(msg).To(HaveSuffix("; re-record it with: go tool agentsnap record " + dir))
	})

	It("is the recording, said once, for a scenario never recorded", func() {
		dir := copyFixture("fork/codeword")
		Expect(os.Remove(filepath.Join(dir, fixture.RootLog))).To(Succeed())
		Expect(run(dir)).To(HaveSuffix(" has no session.jsonl: the scenario was never recorded; record it with: go tool agentsnap record " + dir))
	})

	It("is not offered for scenario.json or replay.override.json, which a recording does not mend", func() {
		dir := copyFixture("fork/codeword")
		editLine(filepath.Join(dir, scenario.File), 15, func(l string) string {
			Expect(l).To(ContainSubstring(`"maxDepth": 2`))
			return strings.Replace(l, `"maxDepth": 2`, `"maxDepth": 2, "maxDepth": 3`, 1)
		})
		msg := run(dir)
		Expect(msg).To(ContainSubstring(`member "maxDepth" is repeated`))
		Expect(msg).NotTo(ContainSubstring("re-record it with"))

		dir = copyFixture("errors/throw-midway")
		override := `{"session.jsonl": {"patch": {"999": {"kind": "throw", "code": "SERVER", "message": "m"}}}}`
		Expect(os.WriteFile(filepath.Join(dir, fixture.OverrideFile), []byte(override), 0o644)).To(Succeed())
		msg = run(dir)
		Expect(msg).To(ContainSubstring("bad replay override: \"session.jsonl\": patch index 999 is out of range"))
		Expect(msg).NotTo(ContainSubstring("re-record it with"))
	})
})

var _ = Describe("the re-recording a test's replay error offers for its options", func() {
	It("is not offered for a number of schedules out of range, which a recording does not change", func() {
		dir := copyFixture("fork/codeword")
		t := &fatalTB{TB: GinkgoTB()}
		Expect(harness.Run(t, dir, harness.Options{Runtime: agent.Reference, Schedules: -1})).To(BeNil())
		Expect(t.fatals).To(HaveLen(1))
		Expect(t.fatals[0]).To(ContainSubstring("-1 schedules: want 0 to "))
		Expect(t.fatals[0]).NotTo(ContainSubstring("re-record it with"))
	})
})
