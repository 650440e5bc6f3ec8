package textdiff_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/textdiff"
)

// benchInputs returns a golden of n lines and a replay with the given lines
// (0-based) changed.
func benchInputs(n int, changed ...int) (string, string) {
	golden := make([]string, n)
	for i := range golden {
		golden[i] = fmt.Sprintf("    assistant: line %d of a long transcript", i)
	}
	replay := append([]string(nil), golden...)
	for _, i := range changed {
		replay[i] = "    assistant: something else"
	}
	return strings.Join(golden, "\n") + "\n", strings.Join(replay, "\n") + "\n"
}

func benchmarkUnified(b *testing.B, n int, changed ...int) {
	golden, replay := benchInputs(n, changed...)
	b.SetBytes(int64(len(golden) + len(replay)))
	b.ReportAllocs()
	for b.Loop() {
		if textdiff.Unified(golden, replay, 3) == "" {
			b.Fatal("no diff")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
}

// BenchmarkUnifiedOneChange is the common failure: a long transcript with
// one line changed in the middle.
func BenchmarkUnifiedOneChange(b *testing.B) { benchmarkUnified(b, 5000, 2500) }

// BenchmarkUnifiedChangesAtBothEnds defeats the common prefix and suffix
// shortcut: the whole input is left for the edit search.
func BenchmarkUnifiedChangesAtBothEnds(b *testing.B) { benchmarkUnified(b, 5000, 10, 4990) }

// BenchmarkUnifiedScattered has a change every 50 lines.
func BenchmarkUnifiedScattered(b *testing.B) {
	var changed []int
	for i := 0; i < 5000; i += 50 {
		changed = append(changed, i)
	}
	benchmarkUnified(b, 5000, changed...)
}
