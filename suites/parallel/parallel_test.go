package parallel_test

import (
	"context"
	"fmt"
	"runtime"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("parallel scenarios", Label("parallel"), func() {
	// harness.CategoryRules requires a step that delegates to two or more
	// children at once, checked by MatchRecording.
	DescribeTable("replay to their recording and golden, again and again",
		func(dir string) { suitekit.Replay(dir) },
		// Each repetition is a new schedule of the concurrent children.
		MustPassRepeatedly(10),
		suitekit.Entries("parallel"),
	)

	// Concurrent children must replay identically under any schedule: 200
	// replays per scenario with GOMAXPROCS from 1 to 8, every one compared
	// with the recording byte for byte after normalisation.
	DescribeTable("replay identically under 200 schedules",
		func(dir string) {
			fx, err := harness.LoadFixture(dir)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(runtime.GOMAXPROCS, runtime.GOMAXPROCS(0))
			var first string
			for i := range 200 {
				runtime.GOMAXPROCS(1 + i%8)
				o, err := harness.Replay(context.Background(), fx, harness.Options{})
				Expect(err).NotTo(HaveOccurred())
				Expect(o).To(harness.MatchRecording(), "replay %d with GOMAXPROCS=%d", i+1, 1+i%8)
				text := encodeAll(o.Replayed)
				if i == 0 {
					first = text
				}
				Expect(text).To(Equal(first), "replay %d wrote other bytes than replay 1", i+1)
			}
		},
		suitekit.Entries("parallel"),
	)
})

// encodeAll returns every replayed log, concatenated.
func encodeAll(logs []*session.Log) string {
	var s string
	for _, l := range logs {
		s += fmt.Sprintf("%s\n", session.Encode(&l.Header, l.Events))
	}
	return s
}
