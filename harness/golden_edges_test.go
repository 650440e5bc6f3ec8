package harness_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/termtext"
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

var _ = Describe("-update of a replay that fails", func() {
	// breakReplay makes the root's recorded answer differ from what its
	// replay writes, and returns the golden, which must stay as it is.
	breakReplay := func() (dir string, golden []byte) {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		DeferCleanup(harness.SetUpdate(true))
		dir = copyFixture("spawn/one-child")
		log := filepath.Join(dir, fixture.RootLog)
		b, err := os.ReadFile(log)
		Expect(err).NotTo(HaveOccurred())
		Expect(bytes.Contains(b, []byte(`"text":"A fresh child`))).To(BeTrue())
		Expect(os.WriteFile(log, bytes.Replace(b, []byte(`"text":"A fresh child`), []byte(`"text":"XA fresh child`), 1), 0o644)).To(Succeed())
		golden, err = os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		return dir, golden
	}

	It("shows the replay's report once through Check: the refusal points to it", func() {
		dir, golden := breakReplay()
		t := &reportTB{TB: GinkgoTB()}
		o := harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(o.Passed()).To(BeFalse())
		report := termtext.Lines(o.Report())
		Expect(strings.Count(t.text(), report)).To(Equal(1), "the report, shown %d times:\n%s", strings.Count(t.text(), report), t.text())
		Expect(t.text()).To(ContainSubstring("the replay itself fails, and goldens are only rewritten from a replay that matches its recording; its report is above"))
		Expect(os.ReadFile(filepath.Join(dir, fixture.GoldenFile))).To(Equal(golden))
	})

	It("still gives the report with the refusal when no assertion showed it", func() {
		dir, golden := breakReplay()
		t := &reportTB{TB: GinkgoTB()}
		o := harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		harness.AssertGolden(t, o)
		Expect(t.text()).To(ContainSubstring("the replay itself fails, and goldens are only rewritten from a replay that matches its recording:\n" + termtext.Lines(o.Report())))
		Expect(os.ReadFile(filepath.Join(dir, fixture.GoldenFile))).To(Equal(golden))
	})
})
