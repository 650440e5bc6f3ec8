package parallel_test

import (
	"runtime"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// schedules is how many seeded schedules each search replays; a run may
// ask for another number with AGENTSNAP_SCHEDULES=N (0 turns the
// searches off), and -schedule-seed=S replays only the schedule S that a
// failure names.
const schedules = 50

var _ = Describe("parallel scenarios", Label("parallel"), func() {
	// judge.CategoryRules requires a step that delegates to two or more
	// children at once, checked by MatchRecording. Every replay runs under
	// a seeded schedule, which times each model call of each session so
	// that concurrent children answer and finish in another order: the
	// outcome is schedule 0's, and each other schedule must match the
	// recording too and write the same bytes.
	DescribeTable("replay to their recording and golden under 50 seeded schedules, byte for byte",
		func(dir string) {
			suitekit.Replay(dir, harness.Options{Runtime: agent.Reference, Schedules: schedules})
		},
		suitekit.Entries("parallel"),
	)

	// GOMAXPROCS 1 runs one goroutine at a time, 8 more than there are
	// cores: each runs other seeds than the table above.
	DescribeTable("replay identically under 50 more schedules each with GOMAXPROCS 1 and 8",
		func(ctx SpecContext, dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(runtime.GOMAXPROCS, runtime.GOMAXPROCS(0))
			for i, procs := range []int{1, 8} {
				runtime.GOMAXPROCS(procs)
				res, err := judge.SearchSchedules(ctx, fx, harness.Options{Runtime: agent.Reference, ScheduleSeed: int64(1 + schedules*(i+1))}, schedules)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Err()).NotTo(HaveOccurred(), "GOMAXPROCS=%d", procs)
			}
		},
		suitekit.Entries("parallel"),
	)
})
