package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's settings for the CLI's own work: a short check that
// collects garbage at every doubling of a heap of a few MiB pays for
// collections the process's exit would make for free; serve's loading
// makes mostly garbage; its verdict must not outgrow what serving held.

// startHeap is the heap check collects garbage at first, as the Go
// compiler starts with a larger heap goal (cmd/compile's
// AdjustStartingHeap): a check of a few scenarios allocates a few MiB and
// then exits, and a larger one collects once at this heap, then at the
// collector's own pace.
const startHeap = 64 << 20

// startingHeap raises the collector's first goal to about limit when the
// process runs at the default GOGC (getenv("GOGC") empty): garbage is
// collected first when the heap reaches limit, and from the end of that
// collection on at the pace it had before, as when the returned function
// is called (the command's end); calls after the first do nothing. Checks
// that overlap in one process (a test's) share the raise: the pace comes
// back when the last of them ends or at the first collection.
func startingHeap(getenv func(string) string, limit int64) func() {
	if getenv != nil && getenv("GOGC") != "" {
		return func() {} // the user's own pace
	}
	raised.Lock()
	defer raised.Unlock()
	if raised.checks++; raised.checks == 1 {
		ss := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(ss)
		// The goal is the live heap times 1+GOGC/100, and at least 4 MiB
		// times GOGC/100.
		live := max(int64(ss[0].Value.Uint64()), 4<<20)
		gc := debug.SetGCPercent(max(100, int(100*limit/live)-100))
		raised.restore = sync.OnceFunc(func() { debug.SetGCPercent(gc) })
		// A cleanup runs once a collection found its object unreachable:
		// after the first collection from now.
		runtime.AddCleanup(new([64]byte), func(restore func()) { restore() }, raised.restore)
	}
	return sync.OnceFunc(func() {
		raised.Lock()
		defer raised.Unlock()
		if raised.checks--; raised.checks == 0 {
			raised.restore()
		}
	})
}

// raised counts the checks running with the raised goal.
var raised struct {
	sync.Mutex
	checks  int
	restore func()
}

// holdMemory has the collector keep the heap within the memory serve holds
// now (or GOMEMLIMIT, if lower), and returns what restores the limit;
// calls after the first do nothing. The verdict that follows a replay
// adds the replayed logs, as it reads them, to what serving leaves
// behind, and reads the recording again: at the collector's usual pace it
// would run to twice what it keeps, above serving's peak, while collecting
// when it reaches what serving holds keeps serve's whole life within its
// serving (measured: 2 collections during the verdict, as without it).
func holdMemory() func() {
	ss := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ss)
	held := int64(ss[0].Value.Uint64() - ss[1].Value.Uint64())
	prev := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(prev, held))
	return sync.OnceFunc(func() { debug.SetMemoryLimit(prev) })
}

// loadHeap is the heap at which serve's loading collects garbage.
const loadHeap = 64 << 20

// collectAt has the collector run only when the heap reaches limit (or the
// limit of GOMEMLIMIT, if lower) and returns what restores its settings;
// calls after the first do nothing.
func collectAt(limit int64) func() {
	prevLimit := debug.SetMemoryLimit(-1)
	gc := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(min(prevLimit, limit))
	return sync.OnceFunc(func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(prevLimit)
	})
}
