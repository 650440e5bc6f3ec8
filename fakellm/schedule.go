package fakellm

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/internal/wait"
)

// Schedule decides when each call of a replay delivers its chunks, so a
// test can search the orders in which concurrent sessions' calls answer
// and finish instead of waiting for the machine to produce them. A
// schedule only perturbs timing: every call is served the same chunks, in
// the same order, as without one.
//
// Plan is asked once per call, at the call's start, under the driver's
// lock; it must not block. A recorded tool's call (Driver.ReplayTool) is
// planned too, as lineage "LINEAGE tool CALLID" with no chunks: its result
// is handed back after the plan's Total.
type Schedule interface {
	// Plan returns the timing of call number call (1 for a session's
	// first) of the recorded session at lineage ("root", "root/call_1",
	// "root/call_1/call_4", "root/call_0#2"), whose answer has chunks
	// chunks.
	Plan(lineage string, call, chunks int) Plan
}

// Plan is the timing of one replayed call. Before each chunk the stream
// yields the processor (runtime.Gosched), then waits Waits[i];
// Waits[chunks] precedes a finish the driver adds (an authored throw's).
// A missing wait is zero. Waits up to SpinWait spin on runtime.Gosched, so
// they are about as long as asked. A longer wait is a lag, which lets the
// calls beside this one finish first: it sleeps half the wait (timers may
// stretch it to a millisecond or so on an idle machine), holds until
// every call in flight whose plan waits less in all has ended its stream
// (at most HoldMax: one of them may wait for this call in turn), then
// sleeps the other half. Every wait ends at once when the call's context
// is cancelled, and the call then ends with an aborted finish.
type Plan struct {
	Waits []time.Duration
}

// Total is the sum of the plan's waits.
func (p Plan) Total() time.Duration {
	var t time.Duration
	for _, w := range p.Waits {
		t += w
	}
	return t
}

// SpinWait is the longest wait a Plan spins for rather than sleeping.
const SpinWait = 100 * time.Microsecond

// The seeded schedule's bounds. One call in two lags: one wait of lagMin to
// lagMax before its first chunk or before its last, which decides when it
// finishes against calls running beside it. Any gap may also jitter by up
// to jitterMax, at most jitterBudget per call.
const (
	lagMin       = 500 * time.Microsecond
	lagMax       = 3 * time.Millisecond
	jitterMax    = 40 * time.Microsecond
	jitterBudget = 200 * time.Microsecond
	// MaxSeededWait is the most a seeded schedule plans to wait during one
	// call, in all; a lag may also hold the call up to HoldMax, and timers
	// may overshoot on a loaded machine.
	MaxSeededWait = lagMax + jitterBudget
)

// Seeded returns the schedule of seed, the one WithSchedule replays under.
// Its plans are drawn from a PRNG keyed by the seed, the session's lineage
// and the call number — never by the order calls arrive in, which is
// itself what a schedule varies — so a seed replays the same timing on
// every run, and different seeds finish sibling sessions (and a parent
// against a child running beside it) in different orders. A seeded plan
// waits at most MaxSeededWait.
func Seeded(seed int64) Schedule { return seeded(seed) }

type seeded int64

func (s seeded) Plan(lineage string, call, chunks int) Plan {
	h := fnv.New64a()
	h.Write([]byte(lineage))
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(call)))
	r := rand.New(rand.NewPCG(uint64(s), h.Sum64()))
	// The lag is drawn first, so it does not depend on the answer's length.
	lagged, atEnd := r.IntN(2) == 0, r.IntN(2) == 0
	lag := lagMin + time.Duration(r.Int64N(int64(lagMax-lagMin)))
	waits := make([]time.Duration, chunks+1)
	budget := jitterBudget
	for i := range waits {
		if r.IntN(3) == 0 && budget > 0 {
			j := min(budget, time.Microsecond+time.Duration(r.Int64N(int64(jitterMax))))
			waits[i] = j
			budget -= j
		}
	}
	if lagged {
		at := 0
		if atEnd && chunks > 0 {
			at = chunks - 1 // before the finish of a recorded answer
		}
		waits[at] += lag
	}
	return Plan{Waits: waits}
}

// timing is one call's plan as a scheduled replay runs it.
type timing struct {
	waits []time.Duration
	total time.Duration
	done  chan struct{} // closed when the call's stream ends
	sched *schedule
}

// plan returns the timing of r's call just claimed, in flight from now,
// or nil when the replay has no schedule. The caller holds d.mu.
func (d *Driver) plan(r *replay, e Entry) *timing {
	s := d.opts.schedule
	if s == nil {
		return nil
	}
	p := s.plan.Plan(r.lineage, r.cursor, len(e.Chunks))
	t := &timing{waits: p.Waits, total: p.Total(), done: make(chan struct{}), sched: s}
	s.mu.Lock()
	s.flying[t] = true
	s.mu.Unlock()
	return t
}

// end marks the call's stream ended (once: a stream may be ranged over
// again).
func (t *timing) end() {
	if t == nil {
		return
	}
	t.sched.mu.Lock()
	defer t.sched.mu.Unlock()
	if t.sched.flying[t] {
		delete(t.sched.flying, t)
		close(t.done)
	}
}

// wait yields, then waits the plan's wait before chunk i; false when ctx
// ended first. A nil timing (no schedule) waits nothing. A wait longer
// than SpinWait is a lag, which lets the calls beside this one finish
// first: it sleeps half the wait, so they arrive; holds until every call
// in flight whose plan waits less in all has ended its stream (at most
// HoldMax); then sleeps the other half, so their runtimes act on it.
func (t *timing) wait(ctx context.Context, i int) bool {
	if t == nil {
		return true
	}
	runtime.Gosched()
	var d time.Duration
	if i < len(t.waits) {
		d = t.waits[i]
	}
	switch {
	case d <= 0:
		return true
	case d > SpinWait:
		return wait.Sleep(ctx, d/2) == nil && t.hold(ctx) && wait.Sleep(ctx, d-d/2) == nil
	}
	for start := time.Now(); time.Since(start) < d; runtime.Gosched() {
		if ctx.Err() != nil {
			return false
		}
	}
	return true
}

// HoldMax bounds how long a lagging call holds for the calls beside it:
// one of them may wait for this call in turn.
const HoldMax = 10 * time.Millisecond

// hold waits until the calls in flight that plan to wait less have ended,
// or HoldMax; false when ctx ended first.
func (t *timing) hold(ctx context.Context) bool {
	var before []chan struct{}
	t.sched.mu.Lock()
	for c := range t.sched.flying {
		if c != t && c.total < t.total {
			before = append(before, c.done)
		}
	}
	t.sched.mu.Unlock()
	if len(before) == 0 {
		return true
	}
	limit := time.NewTimer(HoldMax)
	defer limit.Stop()
	for _, done := range before {
		select {
		case <-done:
		case <-limit.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// schedule is a driver's schedule and the calls it has in flight: those
// whose streams have not ended.
type schedule struct {
	plan Schedule

	mu     sync.Mutex
	flying map[*timing]bool
}
