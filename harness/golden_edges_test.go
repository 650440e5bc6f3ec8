package harness_test

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("-update of a golden with a session the replay no longer has", func() {
	It("logs the warning review --accept gives", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		DeferCleanup(harness.SetUpdate(true))
		dir := copyFixture("spawn/one-child")
		golden := filepath.Join(dir, fixture.GoldenFile)
		b, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(golden, append(b, "\n== session 2: spawn of root via call_gone, depth 1 ==\n  user: gone\n"...), 0o644)).To(Succeed())
		// What -record leaves when the agent no longer starts a session:
		// its log removed, the golden kept beside the proposal.
		Expect(os.WriteFile(golden+judge.ProposalSuffix, b, 0o644)).To(Succeed())
		t := &captureTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.logs).To(ContainElement(HavePrefix("harness: warning: session 2: spawn of root via call_gone, depth 1: the session is in the golden but not in the replay: the agent no longer starts it, and the update removed it from " + golden)))
		Expect(os.ReadFile(golden)).To(Equal(b))
	})
})
