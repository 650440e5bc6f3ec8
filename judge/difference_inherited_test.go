package judge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The report names the first drift, the root's here, once; a fork's
// first difference is then in the turns it inherits, the same change.
var _ = Describe("a fork's difference in the turns it inherits", func() {
	It("is listed as its parent's difference, under the drift that names the parent", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "fork", "codeword")
		Expect(os.CopyFS(dir, os.DirFS("../fixtures/fork/codeword"))).To(Succeed())
		sc := filepath.Join(dir, "scenario.json")
		b, err := os.ReadFile(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(sc, []byte(strings.Replace(string(b), "You are a careful assistant.", "You are a terse assistant.", 1)), 0o644)).To(Succeed())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift.String()).To(HavePrefix("root (root session), model call 1 (turn 1 step 1): the system prompt changed"))
		Expect(o.Differences).NotTo(BeEmpty())
		d := o.Differences[0]
		Expect(d.Session).To(Equal("session 1"))
		Expect(d.Inherited).To(BeTrue())
		Expect(d.Seq).To(BeNumerically("<", fx.Logs[1].Header.SeedLength))
		Expect(o.Report()).To(ContainSubstring("session 1 (fork of root via call_fork_1): seq 3 (request/header): data.systemChars: golden 127, replay 125 (in the turns it inherits: its parent's difference, as its copy shows it)"))
	})
})
