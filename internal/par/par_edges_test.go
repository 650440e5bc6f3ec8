package par_test

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

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

// goroutineID returns the calling goroutine's number, from the first line
// of its stack ("goroutine 7 [running]:").
func goroutineID(t *testing.T) string {
	t.Helper()
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, ok := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	if !ok {
		t.Fatalf("stack header %q has no goroutine number", buf)
	}
	return id
}

func TestForWorksOnTheCallersGoroutine(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	caller := goroutineID(t)
	var mu sync.Mutex
	ran := map[string]int{}
	// Each call holds until both workers have one, so neither can run
	// them all: the two goroutines that ran calls are the workers.
	var both sync.WaitGroup
	both.Add(2)
	par.For(2, func(int) {
		both.Done()
		both.Wait()
		mu.Lock()
		ran[goroutineID(t)]++
		mu.Unlock()
	})
	if len(ran) != 2 || ran[caller] != 1 {
		t.Errorf("the calls ran on goroutines %v; want two, one of them the caller's (%s): a goroutine started where the caller would only wait", ran, caller)
	}
}

// TestForUnwindsACallersPanicOnlyWhenNoCallRuns: a call on the caller's
// goroutine that panics unwinds For only once the calls on the other
// goroutines have returned, so a caller that recovers (storetest recovers
// a store's panic, then closes it) never runs beside them.
func TestForUnwindsACallersPanicOnlyWhenNoCallRuns(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	synctest.Test(t, func(t *testing.T) {
		caller := goroutineID(t)
		var finished, unwound atomic.Bool
		var both sync.WaitGroup
		both.Add(2)
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Error("par.For returned without the panic of the caller's call")
				}
				unwound.Store(finished.Load())
			}()
			par.For(2, func(int) {
				both.Done()
				both.Wait()
				if goroutineID(t) == caller {
					panic("the caller's call")
				}
				// The bubble's clock moves only when every goroutine in it
				// waits: the call ends only if For waits for it.
				time.Sleep(time.Second)
				finished.Store(true)
			})
		}()
		if !unwound.Load() {
			t.Error("par.For unwound the caller's panic while another call still ran")
			time.Sleep(time.Second) // that call ends, so the bubble can
		}
	})
}
