package regression_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// withoutSlice derives a session's script from its whole log, the inherited
// prefix included: the bug agentsnap exists to prevent.
func withoutSlice(l *session.Log) (*fakellm.Script, error) {
	return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
}

// forkScenarios returns every fixture, in any category, with a fork child
// whose seed is not empty — the scenarios the seed slice matters for.
func forkScenarios() []TableEntry {
	dirs, err := harness.Discover(suitekit.Root())
	if err != nil {
		panic(err)
	}
	var out []TableEntry
	for _, dir := range dirs {
		fx, err := fixture.Load(dir)
		if err != nil {
			panic(err)
		}
		for _, l := range fx.Logs {
			if l.Header.Mode == session.ModeFork && l.Header.SeedLength > 0 {
				out = append(out, Entry(fx.Name, Label("seed", filepath.Base(filepath.Dir(dir))), dir))
				break
			}
		}
	}
	return out
}

var _ = Describe("the seed boundary", Label("regression"), func() {
	It("is exercised by at least one fixture of every category that forks", func() {
		Expect(len(forkScenarios())).To(BeNumerically(">=", 4))
	})

	DescribeTable("a fork scenario fails without the seed slice, naming the mis-routed child, and passes with it",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())

			By("replaying with a deriver that skips the slice")
			broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference, Deriver: withoutSlice})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken).NotTo(harness.MatchRecording())
			var misrouted []string
			for _, l := range fx.Logs {
				if l.Header.Mode == session.ModeFork && l.Header.SeedLength > 0 {
					misrouted = append(misrouted, l.Header.ID)
				}
			}
			diagnosis := errors.Join(append(broken.RunErrors, broken.Consumption)...)
			Expect(diagnosis).To(MatchError(fakellm.ErrPathMismatch), "the first inherited call is served to the child's own turn")
			Expect(diagnosis.Error()).To(ContainSubstring(misrouted[0]), "the diagnosis names the mis-routed fork child")
			Expect(strings.Index(broken.Report(), misrouted[0])).To(BeNumerically(">=", 0))

			By("replaying the same scenario with the slice")
			fixed, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
			Expect(err).NotTo(HaveOccurred())
			Expect(fixed).To(harness.MatchRecording())
		},
		forkScenarios(),
	)
})

var _ = Describe("the fixture inventory", Label("regression"), func() {
	It("has every scenario folder with all its files (every category is run: built-in ones by their suite, the rest by suites/custom)", func() {
		Expect(fixture.Inventory(suitekit.Root())).To(BeEmpty())
	})
})
