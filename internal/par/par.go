// Package par runs independent pieces of work on every processor.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n), on as many goroutines as there are
// processors (one goroutine runs them in turn when there is one processor
// or one piece), and returns when every call has. The calls must be
// independent; each takes the next i not yet taken, so a slow piece does
// not hold the others back. The caller's goroutine is one of the workers:
// it would only wait otherwise, and a goroutine started for it would grow
// a stack of its own for the calls, anew after every collection. A panic
// of a call on the caller's goroutine reaches the caller once every other
// call has returned; one on another goroutine ends the program.
func For(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	// Deferred: a panic of the caller's own call unwinds only once no
	// call runs, as For returns.
	defer wg.Wait()
	work()
}
