package sdkagent_test

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

const mixed = root + "/mixed/spawn-and-fork"

var _ = Describe("changing the agent or the golden", func() {
	BeforeEach(func() {
		// The update policy refuses under CI; these specs show the local one.
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("shows drift at the first call when the system prompt in scenario.json changes, and refuses to update the golden from it", func() {
		dir := copyFixture(mixed)
		edit(filepath.Join(dir, scenario.File), "You are Compass, the terse", "You are Compass, the chatty")
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

	It("rewrites an edited golden from a replay that matches its recording (what -update does)", func() {
		dir := copyFixture(mixed)
		path := filepath.Join(dir, fixture.GoldenFile)
		original, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		edit(path, "assistant: 400 EUR each.", "assistant: 300 EUR each.")

		o := replay(dir)
		Expect(o).To(harness.MatchRecording())
		cmp := judge.CompareGolden(o)
		Expect(cmp.Message).To(ContainSubstring("-    assistant: 300 EUR each."))
		Expect(cmp.Message).To(ContainSubstring("+    assistant: 400 EUR each."))

		res := judge.UpdateGolden(o)
		Expect(res.Message).To(BeEmpty())
		Expect(res.Updated).To(BeTrue())
		Expect(os.ReadFile(path)).To(Equal(original), "the golden is the recording's transcript again")
		Expect(judge.CompareGolden(replay(dir)).Message).To(BeEmpty())
	})
})
