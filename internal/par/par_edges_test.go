package par_test

import (
	"runtime"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/agentsnap/agentsnap/internal/par"
)

// inFlight counts the calls of par.For running at once: each call holds
// until release closes. synctest.Wait returns once every call that could
// start has started and blocks, so the count is exact, not a sample.
func inFlight(t *testing.T, procs, n int) int {
	t.Helper()
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	var started, atOnce int
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		release := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			par.For(n, func(int) {
				mu.Lock()
				started++
				mu.Unlock()
				<-release
			})
		}()
		synctest.Wait()
		mu.Lock()
		atOnce = started
		mu.Unlock()
		close(release)
		<-done
	})
	return atOnce
}

func TestForRunsOneCallPerProcessorAtOnce(t *testing.T) {
	for _, c := range []struct{ procs, n, want int }{
		{procs: 2, n: 8, want: 2}, // bounded: never more calls at once than processors
		{procs: 4, n: 8, want: 4}, // parallel: every processor gets a call
		{procs: 4, n: 3, want: 3}, // never more goroutines than pieces
		{procs: 1, n: 8, want: 1},
	} {
		if got := inFlight(t, c.procs, c.n); got != c.want {
			t.Errorf("GOMAXPROCS %d, n %d: %d calls ran at once, want %d", c.procs, c.n, got, c.want)
		}
	}
}
