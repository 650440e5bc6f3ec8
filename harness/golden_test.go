package harness_test

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("MatchGolden with a golden that is a folder", func() {
	It("says it cannot be read, not that the transcript differs or is missing", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := copyFixture("spawn/one-child")
		golden := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.Remove(golden)).To(Succeed())
		Expect(os.Mkdir(golden, 0o755)).To(Succeed())
		o := replay(dir)
		matcher := harness.MatchGolden(GinkgoTB())
		ok, err := matcher.Match(o)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		msg := matcher.FailureMessage(o)
		Expect(msg).To(ContainSubstring(golden + " cannot be read: it is a folder, not a file; restore it from version control (or make it readable), or move it away"))
		Expect(msg).NotTo(ContainSubstring("differs"))
		Expect(golden + ".new").NotTo(BeAnExistingFile())
	})
})
