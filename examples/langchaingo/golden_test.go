package langchaingo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// copyFixture copies every file of a fixture into a fresh CATEGORY/NAME
// folder under a temporary folder, so a spec may edit it.
func copyFixture(dir string) string {
	dst := filepath.Join(GinkgoT().TempDir(), harness.Name(dir))
	Expect(os.MkdirAll(dst, 0o755)).To(Succeed())
	files, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644)).To(Succeed())
	}
	return dst
}

// edit replaces old by new in a file, which must hold old.
func edit(path, old, new string) {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(b)).To(ContainSubstring(old))
	Expect(os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644)).To(Succeed())
}

func replay(dir string) *harness.Outcome {
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, opts)
	Expect(err).NotTo(HaveOccurred())
	return o
}

const mixed = root + "/mixed/researcher-and-colleague"

var _ = Describe("changing the desk or the golden", func() {
	BeforeEach(func() {
		// The update policy refuses under CI; these specs show the local one.
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("shows drift at the first call when the system prompt in scenario.json changes, and refuses to update the golden from it", func() {
		dir := copyFixture(mixed)
		edit(filepath.Join(dir, scenario.File), "You are Harbor, the terse", "You are Harbor, the chatty")
		golden, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())

		o := replay(dir)
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Session).To(Equal("root"))
		Expect(o.Drift.Call).To(Equal(1), "the root's first request already carries the new prompt")
		Expect(o.Drift.String()).To(ContainSubstring("the system prompt changed"))
		Expect(o.Report()).To(ContainSubstring("the system prompt changed"))

		res := judge.UpdateGolden(o)
		Expect(res.Updated).To(BeFalse())
		Expect(res.Message).To(ContainSubstring("the replay itself fails"))
		Expect(os.ReadFile(filepath.Join(dir, fixture.GoldenFile))).To(Equal(golden), "the golden is untouched")
	})

	It("names the setting when the temperature the desk passes with chains.WithTemperature changes", func() {
		dir := copyFixture(mixed)
		edit(filepath.Join(dir, scenario.File), `"temperature": 0.2`, `"temperature": 0.7`)

		o := replay(dir)
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Session).To(Equal("root"))
		Expect(o.Drift.Call).To(Equal(1))
		Expect(o.Drift.String()).To(And(ContainSubstring("the request settings changed"), ContainSubstring("temperature"), ContainSubstring("0.7")))
	})

	It("rewrites an edited golden from a replay that matches its recording, under -update (AGENTSNAP_UPDATE=1) only", func() {
		dir := copyFixture(mixed)
		path := filepath.Join(dir, fixture.GoldenFile)
		original, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		edit(path, "assistant: 3.6 times the allowed error rate.", "assistant: 2.6 times the allowed error rate.")

		By("comparing without -update: the golden differs, and the message gives the command that updates it")
		GinkgoT().Setenv("AGENTSNAP_UPDATE", "")
		o := harness.Run(GinkgoTB(), dir, opts)
		Expect(o).To(harness.MatchRecording())
		cmp := judge.CompareGolden(o)
		Expect(cmp.Message).To(And(
			ContainSubstring("-    assistant: 2.6 times the allowed error rate."),
			ContainSubstring("+    assistant: 3.6 times the allowed error rate."),
			ContainSubstring("-update"),
		))
		Expect(os.ReadFile(path)).NotTo(Equal(original))

		By("replaying with -update")
		GinkgoT().Setenv("AGENTSNAP_UPDATE", "1")
		o = harness.Run(GinkgoTB(), dir, opts)
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(os.ReadFile(path)).To(Equal(original), "the golden is the recording's transcript again")

		GinkgoT().Setenv("AGENTSNAP_UPDATE", "")
		Expect(judge.CompareGolden(replay(dir)).Message).To(BeEmpty())
	})
})

var _ = Describe("the desk's settings in scenario.json", func() {
	It("refuses a misspelt setting, naming it, rather than replaying something else", func() {
		dir := copyFixture(root + "/memory/follow-up")
		edit(filepath.Join(dir, scenario.File), `"remember": true`, `"remeber": true`)
		o := replay(dir)
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring(`opsdesk: scenario.json agent: json: unknown field "remeber"`))
	})
})
