package harness_test

import (
	"runtime"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("schedule search whose own replay differs from the recording", Ordered, func() {
	var (
		dir  string
		base int64
	)
	BeforeAll(func() {
		// One goroutine at a time: see flipSeeds.
		DeferCleanup(runtime.GOMAXPROCS, runtime.GOMAXPROCS(1))
		dir = recordCompletionOrder()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		base = flipSeeds(fx)
	})

	// Schedule 0 is seed base+1, under which call_b finishes first: the
	// outcome differs from the recording and the search finds schedules
	// that write other logs. The report says re-recording does not help;
	// its closing advice must not tell the user to re-record as if it did.
	It("does not end by advising a re-recording, which the search says cannot help", func() {
		o := harness.Options{Runtime: completionOrder{}, Schedules: 50, ScheduleSeed: base + 1}
		out := harness.Run(GinkgoTB(), dir, o)
		Expect(out.Differences).NotTo(BeEmpty(), "schedule 0 finishes call_b first, unlike the recording")
		Expect(out.RunErrors).To(ContainElement(MatchError(judge.ErrScheduleDependent)))
		report := out.Report()
		Expect(report).To(ContainSubstring("Re-recording does not help"))
		Expect(report).NotTo(ContainSubstring("If the change is intended, re-record the scenario"))
		Expect(report).To(ContainSubstring("Re-recording now would record one order of many (see above). Once the agent writes its logs in the same order\nunder every schedule, if the replay still differs and the change is intended, re-record the scenario:\n  go tool ginkgo"))

		golden := judge.CompareGolden(out).Message
		Expect(golden).To(ContainSubstring("the transcript differs from"))
		Expect(golden).NotTo(ContainSubstring("If the change is intended, re-record the scenario"))
		Expect(golden).To(ContainSubstring("Re-recording now would record one order of many"))
	})
})
