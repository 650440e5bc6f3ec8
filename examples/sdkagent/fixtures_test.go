package sdkagent_test

import (
	"context"
	"errors"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// root is where sdkagent's fixtures live; go test runs in the package folder.
const root = "testdata/fixtures"

// opts replays with sdkagent, the runtime that recorded the fixtures.
var opts = harness.Options{Runtime: runtime}

// fixtures returns the fixture folders.
func fixtures() []string {
	dirs, err := harness.Discover(root)
	if err != nil {
		panic(err)
	}
	return dirs
}

// entries returns one table entry per fixture, named CATEGORY/NAME, whose
// logs hold a session that keep accepts (every fixture for nil). A fixture
// that does not load yet (never recorded) is left to the replay table,
// which says why.
func entries(keep func(*session.Log) bool) []TableEntry {
	var out []TableEntry
	for _, dir := range fixtures() {
		if keep == nil {
			out = append(out, Entry(harness.Name(dir), dir))
			continue
		}
		fx, err := fixture.Load(dir)
		if err != nil {
			continue
		}
		if hasLog(fx.Logs, keep) {
			out = append(out, Entry(fx.Name, dir))
		}
	}
	return out
}

func hasLog(logs []*session.Log, keep func(*session.Log) bool) bool {
	for _, l := range logs {
		if keep(l) {
			return true
		}
	}
	return false
}

func seededFork(l *session.Log) bool {
	return l.Header.Mode == session.ModeFork && l.Header.SeedLength > 0
}

// ignoreSeed derives a child's script from its whole log, the inherited
// prefix included: the mistake the seed slice prevents.
func ignoreSeed(l *session.Log) (*fakellm.Script, error) {
	return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
}

var _ = Describe("sdkagent's fixtures", func() {
	It("cover spawn, a fork after a completed turn, and spawn with fork at once", func() {
		var names []string
		for _, dir := range fixtures() {
			names = append(names, harness.Name(dir))
		}
		Expect(names).To(ConsistOf("spawn/weather-helpers", "fork/trip-budget", "mixed/spawn-and-fork"))
	})

	// AGENTSNAP_RECORD='.' re-records them from their playbooks first.
	DescribeTable("replay to their recording and their golden transcript",
		func(dir string) {
			o := harness.Run(GinkgoTB(), dir, opts)
			Expect(o).To(harness.MatchRecording())
			Expect(o).To(harness.MatchGolden(GinkgoTB()))
			Expect(o.Fixture.Scenario.Recorded.Runtime).To(Equal("sdkagent"))
			Expect(len(o.Replayed)).To(BeNumerically(">", 1), "every fixture delegates: the wire layer wrote a log per session")
		},
		entries(nil),
	)

	DescribeTable("a fork fixture fails without the seed slice, naming the fork child, and passes with it",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			var forks []string
			for _, l := range fx.Logs {
				if seededFork(l) {
					forks = append(forks, l.Header.ID)
				}
			}
			Expect(forks).NotTo(BeEmpty())

			By("deriving the child's script from its whole log, inherited prefix included")
			broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: runtime, Deriver: ignoreSeed})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken.Passed()).To(BeFalse())
			diagnosis := errors.Join(append(broken.RunErrors, broken.Consumption)...)
			Expect(diagnosis).To(MatchError(fakellm.ErrPathMismatch), "an inherited answer is served to the child's own turn")
			Expect(broken.Report()).To(ContainSubstring(forks[0]), "the report names the fork child")

			By("deriving it from its own events only")
			fixed, err := judge.Replay(context.Background(), fx, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(fixed).To(harness.MatchRecording())
		},
		entries(seededFork),
	)
})
