package harness_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
)

// BenchmarkReplayForkScale replays BenchmarkReplayFork's scenario at one,
// two and four times its size — every answer longer, the turns and calls
// the same — and reports the time per event, which stays flat when a
// replay costs time linear in the size of its logs.
//
//	go test -run '^$' -bench ReplayForkScale -benchtime 10x -benchmem ./harness
func BenchmarkReplayForkScale(b *testing.B) {
	for _, scale := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("x%d", scale), func(b *testing.B) {
			spec := forkSpec{turns: 80, answerWords: 50 * scale, childWords: 1500 * scale}
			dir, err := writeForkScenario(b.TempDir(), "scaled", spec)
			if err != nil {
				b.Fatal(err)
			}
			fx, err := fixture.Load(dir)
			if err != nil {
				b.Fatal(err)
			}
			events := countEvents(fx)
			for b.Loop() {
				o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
				if err != nil {
					b.Fatal(err)
				}
				if !o.Passed() {
					b.Fatalf("the replay does not match its recording:\n%s", o.Report())
				}
			}
			b.ReportMetric(float64(events), "events")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
		})
	}
}
