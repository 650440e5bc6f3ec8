package fakellm

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// WithVirtualTime gives the replay a virtual clock: timeouts made through
// [Driver.WithTimeout] run in the replay's time, which passes only when the
// replay can make no progress without it. A call recorded as a hang or as
// aborted waits for its context to end, as it did while recording; once
// every call in flight waits that way and every call recorded before those
// waits has been made and answered (and every session that finished its
// turn before them has stored its turn/end, when the driver watches the
// store: [Driver.Watch]), the earliest pending timeout fires. A recorded
// turnTimeout then ends a hang at once, whatever its length, in the order
// it did while recording.
//
// Time never passes slower than real time: a timeout the replay holds —
// the runtime does not make a recorded call (it took another path), or
// waits for something the driver cannot see — fires after its real
// duration, as a real timer would. [Driver.Waiting] says what a replay that
// does not end waits for.
func WithVirtualTime() Option { return func(o *options) { o.virtual = true } }

// WithTimeout returns a context that ends after d in the replay's time,
// for agentsnap.Env.WithTimeout. Without [WithVirtualTime] it is
// context.WithTimeout.
//
// Once it fires, the context's Err is context.DeadlineExceeded (and so is
// context.Cause), for it and for every context derived from it, so a
// runtime tells a timeout from a cancel as it does in real time. Its
// Deadline is its parent's — it has none of its own, so no runtime derives
// a real timer from it. It ends when its parent ends, with the parent's
// error, and when cancel is called, with context.Canceled. Timeouts fire in
// the order of their virtual deadlines (virtual now + d when made), ties in
// the order they were made.
func (d *Driver) WithTimeout(parent context.Context, dur time.Duration) (context.Context, context.CancelFunc) {
	if !d.opts.virtual {
		return context.WithTimeout(parent, dur)
	}
	c := &timerCtx{parent: parent, driver: d, done: make(chan struct{}), funcs: map[*func()]struct{}{}}
	c.inner, c.cancelInner = context.WithCancelCause(context.WithoutCancel(parent))
	cancel := func() { c.end(context.Canceled, context.Canceled) }
	if err := parent.Err(); err != nil {
		c.end(err, context.Cause(parent))
		return c, cancel
	}
	if dur <= 0 {
		c.end(context.DeadlineExceeded, context.DeadlineExceeded)
		return c, cancel
	}
	d.mu.Lock()
	c.timer = d.clock.add(c, dur)
	c.timer.real = time.AfterFunc(dur, func() { d.overdue(c.timer) })
	d.mu.Unlock()
	stop := context.AfterFunc(parent, func() { c.end(parent.Err(), context.Cause(parent)) })
	c.mu.Lock()
	ended := c.err != nil
	if !ended {
		c.stopParent = stop
	}
	c.mu.Unlock()
	if ended {
		stop()
	}
	d.changed()
	return c, cancel
}

// clock is the replay's virtual time and its pending timers. The driver's
// lock guards it.
type clock struct {
	now     time.Duration // virtual time since the replay began
	wake    chan struct{} // closed and replaced at every change; see changed
	waiters int           // calls in await, which wake wakes
	made    int           // timers made so far, for their order
	pending timerHeap
	firing  bool // a timer is being fired outside the lock
	// overdue is the latest timer whose real duration has passed: it and
	// every timer due before it fire without waiting for the replay.
	overdue *vtimer
}

// vtimer is one timeout on the virtual clock.
type vtimer struct {
	at    time.Duration // virtual deadline
	seq   int
	d     time.Duration
	ctx   *timerCtx
	real  *time.Timer // fires the timer after d of real time
	index int         // in the heap; -1 once it fired or was stopped
}

func (t *vtimer) before(u *vtimer) bool { return t.at < u.at || t.at == u.at && t.seq < u.seq }

func (c *clock) add(ctx *timerCtx, d time.Duration) *vtimer {
	at := c.now + d
	if d > math.MaxInt64-c.now {
		at = math.MaxInt64
	}
	t := &vtimer{at: at, seq: c.made, d: d, ctx: ctx}
	c.made++
	heap.Push(&c.pending, t)
	return t
}

// remove takes t off the clock (it ended another way, or fired).
func (c *clock) remove(t *vtimer) {
	if t.index >= 0 {
		heap.Remove(&c.pending, t.index)
	}
	if t.real != nil {
		t.real.Stop()
	}
}

// advance pops the timer to fire now, or returns nil: the earliest pending
// timer, when it is overdue in real time or the replay cannot progress
// without it. The caller holds d.mu and fires the timer after unlocking.
func (d *Driver) advance() *vtimer {
	c := d.clock
	if c == nil || c.firing || len(c.pending) == 0 {
		return nil
	}
	t := c.pending[0]
	if (c.overdue == nil || c.overdue.before(t)) && !d.stalled() {
		return nil
	}
	c.remove(t)
	c.now = max(c.now, t.at)
	c.firing = true
	return t
}

// fire fires t, then every timer that is due after it, one at a time: a
// timer's context ends, and every context derived from it, before the
// next is considered. The caller does not hold d.mu.
func (d *Driver) fire(t *vtimer) {
	for t != nil {
		t.ctx.end(context.DeadlineExceeded, context.DeadlineExceeded)
		d.mu.Lock()
		d.clock.firing = false
		t = d.advance()
		d.mu.Unlock()
	}
}

// overdue runs when t's real duration has passed: t, and every timer due
// before it, fire now whatever the replay is doing.
func (d *Driver) overdue(t *vtimer) {
	d.mu.Lock()
	c := d.clock
	if t.index >= 0 && (c.overdue == nil || c.overdue.before(t)) {
		c.overdue = t
	}
	next := d.advance()
	d.mu.Unlock()
	d.fire(next)
}

// changed wakes the calls that wait for their context, after the replay's
// state changed (a call began waiting or ended, a timer was made, a
// session stored its turn/end), so they look at the clock again. A timer
// fires in a waiting call's goroutine, never in the one that just made
// progress: that one goes on first with what it was doing.
func (d *Driver) changed() {
	if d.clock == nil {
		return
	}
	d.mu.Lock()
	if c := d.clock; c.waiters > 0 {
		close(c.wake)
		c.wake = make(chan struct{})
	}
	d.mu.Unlock()
}

// await waits until ctx ends, f marked as waiting meanwhile: the state in
// which the virtual clock may advance, which it does from here.
func (d *Driver) await(ctx context.Context, f *flight) {
	d.mu.Lock()
	f.waiting = !f.landed
	if d.clock != nil {
		d.clock.waiters++
	}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		if d.clock != nil {
			d.clock.waiters--
		}
		d.mu.Unlock()
	}()
	for {
		var next *vtimer
		var wake chan struct{}
		d.mu.Lock()
		if d.clock != nil {
			next, wake = d.advance(), d.clock.wake
		}
		d.mu.Unlock()
		if next != nil {
			d.fire(next)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake: // nil without a clock: wait for ctx alone
		}
	}
}

// timerHeap orders pending timers by virtual deadline, then by creation.
type timerHeap []*vtimer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].before(h[j]) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*vtimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*h = old[:len(old)-1]
	return t
}

// timerCtx is the context of a virtual timeout. Its Done channel is its
// own, so the context package does not take it for a plain cancel context
// (whose children end with context.Canceled): a context derived from it
// registers through AfterFunc and ends with this one's Err, which is
// context.DeadlineExceeded once the timer fired. inner carries the values
// and the cause context.Cause reads.
type timerCtx struct {
	parent      context.Context
	inner       context.Context
	cancelInner context.CancelCauseFunc
	done        chan struct{}
	timer       *vtimer // nil when it ended at once
	driver      *Driver

	mu         sync.Mutex
	err        error
	funcs      map[*func()]struct{}
	stopParent func() bool
}

// timerKey finds the nearest virtual timeout among a context's ancestors.
type timerKey struct{}

func (c *timerCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *timerCtx) Done() <-chan struct{}       { return c.done }

func (c *timerCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *timerCtx) Value(key any) any {
	if key == (timerKey{}) {
		return c
	}
	return c.inner.Value(key)
}

func (c *timerCtx) String() string {
	if c.timer == nil {
		return "fakellm.WithTimeout(ended)"
	}
	return fmt.Sprintf("fakellm.WithTimeout(%v)", c.timer.d)
}

// AfterFunc runs f when c ends. The context package calls it for every
// context derived from c; f runs in the goroutine that ends c, before the
// end returns, so a timer's firing ends every derived context before the
// clock looks at the replay again. (context.AfterFunc wraps f and runs it
// in a goroutine of its own, as documented.)
func (c *timerCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f() // the caller may hold the lock of the context f ends
		return func() bool { return false }
	}
	key := &f
	c.funcs[key] = struct{}{}
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.funcs[key]
		delete(c.funcs, key)
		return ok
	}
}

// end ends c with err (the first end wins): the timer leaves the clock, the
// cause is set, Done closes, and the contexts derived from c end.
func (c *timerCtx) end(err, cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	funcs, stop := c.funcs, c.stopParent
	c.funcs, c.stopParent = nil, nil
	c.mu.Unlock()
	if c.timer != nil {
		c.driver.mu.Lock()
		c.driver.clock.remove(c.timer)
		c.driver.mu.Unlock()
	}
	if stop != nil {
		stop()
	}
	c.cancelInner(cause)
	close(c.done)
	for f := range funcs {
		(*f)()
	}
}
