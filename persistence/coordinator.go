package persistence

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/session"
)

// Coordinator is the [Store] every backend runs under. It owns per-session
// ordering, validation, lazy materialisation and crash repair (see the
// package doc), so a [Backend] only stores bytes.
//
// All methods are safe for concurrent use. Calls on one session are
// serialised; calls on different sessions run in parallel, as far as the
// backend allows. Close waits for calls in progress.
type Coordinator struct {
	b Backend

	// life is held shared by every call and exclusively by Close, so Close
	// never pulls the backend from under a write.
	life   sync.RWMutex
	closed bool

	mu       sync.Mutex // guards sessions and ordinal
	sessions map[string]*entry
	ordinal  int
}

// entry is one session's state. Its fields other than header and ordinal
// are guarded by mu.
type entry struct {
	header  session.Header // fixed at creation
	ordinal int            // creation order; storage order for stored sessions

	mu     sync.Mutex
	stored bool            // the backend holds the session
	seed   []session.Event // the seed while the session is not stored
	live   bool            // created or written by this Coordinator
	known  bool            // next, closers and torn reflect the backend

	next    int64           // the seq the next Append starts at, closers counted
	last    lastMark        // the last stored event, as this store wrote or read it
	closers []session.Event // closers of an interrupted turn, not yet written
	torn    *session.TornLine
	deleted bool // Delete removed the session; calls holding e fail

	// foreign says why, once Load found that the stored log no longer
	// held what this store wrote: another process wrote to it. Append and Load
	// return it from then on, so this store never writes beside the
	// other writer; reopening the store reads what is stored afresh.
	foreign error

	// gone is set while the backend says the stored log is gone, so List
	// leaves the session out as a reopened store would. Atomic: List
	// does not wait for e.mu, which a write holds.
	gone atomic.Bool

	// batch is Append's Batch, reused under mu: a new one per call would
	// be an allocation (Write takes it through an interface). It is
	// zeroed once Write returns, so it holds no events between calls.
	batch Batch
}

var _ Store = (*Coordinator)(nil)

// New returns a Store over b. It reads the stored headers once; the store
// then assumes it is the only writer of b. Closing the store closes b.
func New(ctx context.Context, b Backend) (*Coordinator, error) {
	headers, err := b.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	c := &Coordinator{b: b, sessions: make(map[string]*entry, len(headers))}
	for _, h := range headers {
		if _, dup := c.sessions[h.ID]; dup {
			return nil, fmt.Errorf("%s: session %s is stored twice (%s)", b.Kind(), h.ID, b.Where(h.ID))
		}
		c.sessions[h.ID] = &entry{header: h, ordinal: c.ordinal, stored: true}
		c.ordinal++
	}
	return c, nil
}

// Backend returns the storage under the store, for reading it as stored.
func (c *Coordinator) Backend() Backend { return c.b }

// fail wraps err with the backend, the operation and where the session is,
// unless err says where already (the backends' own errors do).
func (c *Coordinator) fail(op, id string, err error) error {
	if w := c.b.Where(id); w != "" && !strings.Contains(err.Error(), w) {
		return fmt.Errorf("%s: %s session %s (%s): %w", c.b.Kind(), op, id, w, err)
	}
	return fmt.Errorf("%s: %s session %s: %w", c.b.Kind(), op, id, err)
}

// enter starts a call: it checks ctx and holds the store open until leave.
// (Returning c.life.RUnlock instead would allocate a closure per call.)
func (c *Coordinator) enter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.life.RLock()
	if c.closed {
		c.life.RUnlock()
		return ErrClosed
	}
	return nil
}

// leave ends a call that enter started.
func (c *Coordinator) leave() { c.life.RUnlock() }

func (c *Coordinator) lookup(op, id string) (*entry, error) {
	c.mu.Lock()
	e := c.sessions[id]
	c.mu.Unlock()
	if e == nil {
		return nil, c.fail(op, id, ErrUnknownSession)
	}
	return e, nil
}

// Create implements [Store]. It validates h and seed and keeps them in
// memory until the first Append; the caller must not modify seed after.
func (c *Coordinator) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	const op = "create"
	if err := c.enter(ctx); err != nil {
		return c.fail(op, h.ID, err)
	}
	defer c.leave()
	if err := ValidateHeader(&h); err != nil {
		return c.fail(op, h.ID, err)
	}
	if h.SeedLength > len(seed) {
		return c.fail(op, h.ID, fmt.Errorf("%w: seedLength is %d but the seed holds %d events", ErrBadSeed, h.SeedLength, len(seed)))
	}
	if err := checkBatch(0, seed); err != nil {
		return c.fail(op, h.ID, fmt.Errorf("seed: %w", err))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.sessions[h.ID]; ok {
		if e.gone.Load() {
			// Not stored anew here: a backend may still hold the id (the
			// JSONL backend's files, one put back since), so its first
			// write would be refused, or a restored log stand beside it.
			return c.fail(op, h.ID, fmt.Errorf("%w in this store, but its stored log is gone: delete the session and create it again, or restore the log and open the store again", ErrSessionExists))
		}
		return c.fail(op, h.ID, ErrSessionExists)
	}
	c.sessions[h.ID] = &entry{
		header: h, ordinal: c.ordinal, seed: cloneSeed(seed),
		live: true, known: true, next: int64(len(seed)),
	}
	c.ordinal++
	return nil
}

// firstBatch is the room a seed's copy keeps for the events of the first
// Append, which is written with the seed: a fork child's first batch
// (turn/start to request/header) then joins the seed without copying it.
const firstBatch = 32

func cloneSeed(seed []session.Event) []session.Event {
	if len(seed) == 0 {
		return slices.Clone(seed)
	}
	return append(make([]session.Event, 0, len(seed)+firstBatch), seed...)
}

// checkBatch checks that events continue a log whose next seq is next and
// that each would read back as written.
func checkBatch(next int64, events []session.Event) error {
	for i := range events {
		if want := next + int64(i); events[i].Seq != want {
			return fmt.Errorf("%w: event %d of the batch has seq %d, expected %d (seqs are dense from 0)", ErrOutOfOrder, i, events[i].Seq, want)
		}
		if err := ValidateEvent(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// Append implements [Store]. The first Append of a session writes its
// header and seed too; the first Append after a Load that closed an
// interrupted turn writes the closers first. An empty batch still does
// both, so it materialises a session.
func (c *Coordinator) Append(ctx context.Context, id string, events []session.Event) error {
	const op = "append to"
	if err := c.enter(ctx); err != nil {
		return c.fail(op, id, err)
	}
	defer c.leave()
	e, err := c.lookup(op, id)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.deleted {
		return c.fail(op, id, ErrUnknownSession)
	}
	if e.foreign != nil {
		return c.fail(op, id, e.foreign)
	}
	if _, err := c.sync(ctx, op, id, e); err != nil {
		return err
	}
	if len(events) > 0 && events[0].Seq != e.next {
		return c.fail(op, id, e.orderError(events[0].Seq))
	}
	if err := checkBatch(e.next, events); err != nil {
		return c.fail(op, id, err)
	}
	e.batch = Batch{Header: &e.header, New: !e.stored, Torn: e.torn, Events: events}
	b := &e.batch
	if b.New || len(e.closers) > 0 {
		// Into the seed's spare room when it fits; e.seed itself keeps
		// its length, so a failed write changes nothing.
		b.Events = append(append(e.seed, e.closers...), events...)
	}
	written := b.Events
	err = c.b.Write(ctx, b)
	e.batch = Batch{}
	if err != nil {
		// The write may have stored a prefix; read the state back before
		// the next call instead of guessing.
		e.known = false
		if e.stored { // not b.New: b is e.batch, emptied above
			return c.lost(op, id, e, err)
		}
		return err
	}
	e.stored, e.live = true, true
	if len(written) > 0 {
		e.last = markLast(written)
	}
	e.seed, e.closers, e.torn = nil, nil, nil
	e.next += int64(len(events))
	return nil
}

// orderError explains a batch that does not start at the next seq.
func (e *entry) orderError(first int64) error {
	err := fmt.Errorf("%w: the batch starts at seq %d, but the session's next seq is %d", ErrOutOfOrder, first, e.next)
	if n := int64(len(e.closers)); n > 0 && first == e.next-n {
		err = fmt.Errorf("%w; the stored log ends inside an interrupted turn, which Load closes with %d events (seqs %d-%d): load the session and continue after them", err, n, e.next-n, e.next-1)
	}
	return err
}

// sync makes e's state reflect the backend, reading the stored log when
// the state is not known yet (first use of a stored session, or after a
// failed write). It returns the log it read, if it read one.
func (c *Coordinator) sync(ctx context.Context, op, id string, e *entry) (*session.Log, error) {
	if e.known {
		return nil, nil
	}
	l, err := c.b.Read(ctx, id)
	if !e.stored && errors.Is(err, ErrUnknownSession) {
		e.known = true // a failed first write stored nothing
		return nil, nil
	}
	if err != nil {
		return nil, c.lost(op, id, e, err)
	}
	e.apply(l)
	return l, nil
}

// lost explains err, an error of the backend about session e it stored,
// when the backend no longer knows the session: its stored log is gone,
// and the session is never stored anew, which would drop the events
// acknowledged before (a first write of them all would start a log at
// the next seq, not at 0). The backend's error is kept, wrapped: its
// words say why, its sentinels still match. The next call reads the log
// again, and List leaves the session out until then. Other errors come
// back as they are.
func (c *Coordinator) lost(op, id string, e *entry, err error) error {
	if !errors.Is(err, ErrUnknownSession) {
		return err
	}
	e.known = false
	e.gone.Store(true)
	return c.fail(op, id, fmt.Errorf("its stored log is gone, and nothing can continue the events it held: restore the log and open the store again, or delete the session and record it again (one store per folder or database at a time): %w", err))
}

// apply sets e's state from its stored log. Only a session this store has
// not written is repaired with closers: a live session's open turn is in
// progress, not interrupted.
func (e *entry) apply(l *session.Log) {
	e.stored, e.seed = true, nil
	e.closers = nil
	if !e.live {
		e.closers = Closers(l.Events)
	}
	e.torn = l.Torn
	e.next = int64(len(l.Events) + len(e.closers))
	e.last = markLast(l.Events)
	e.known = true
	e.gone.Store(false)
}

// Load implements [Store]. A stored log that ends inside a turn comes back
// with that turn closed by [Closers]; a torn last line is dropped and
// reported in Log.Torn. Load never writes.
func (c *Coordinator) Load(ctx context.Context, id string) (*session.Log, error) {
	const op = "load"
	if err := c.enter(ctx); err != nil {
		return nil, c.fail(op, id, err)
	}
	defer c.leave()
	e, err := c.lookup(op, id)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.deleted {
		return nil, c.fail(op, id, ErrUnknownSession)
	}
	if e.foreign != nil {
		return nil, c.fail(op, id, e.foreign)
	}
	l, err := c.sync(ctx, op, id, e)
	if err != nil {
		return nil, err
	}
	if !e.stored {
		return &session.Log{Header: e.header, Events: slices.Clone(e.seed)}, nil
	}
	if l == nil {
		if l, err = c.b.Read(ctx, id); err != nil {
			return nil, c.lost(op, id, e, err)
		}
	}
	if err := e.foreignLog(l); err != nil {
		e.foreign = err
		return nil, c.fail(op, id, e.foreign)
	}
	l.Events = append(l.Events, e.closers...)
	return l, nil
}

// foreignLog returns why l, the stored log of e read again, is not the one
// this store wrote or read, or nil: its events are as many, and its last
// is the same. Only the last event is compared, so a Load costs no pass
// over the log: another writer's log that ends alike (the same events
// written again, or others before the same last one) passes.
func (e *entry) foreignLog(l *session.Log) error {
	const other = "another process wrote to it (one store per folder or database at a time), so this store no longer appends to it or loads it: stop the other writer and open the store again, or delete the session"
	if got := int64(len(l.Events) + len(e.closers)); got != e.next {
		return fmt.Errorf("the stored log holds %d events, but this store wrote up to seq %d: %s", len(l.Events), e.next-1, other)
	}
	if n := len(l.Events); n > 0 && markLast(l.Events) != e.last {
		return fmt.Errorf("the stored log holds as many events as this store wrote, but its last (seq %d, %s) is not the one this store wrote: %s", n-1, l.Events[n-1].Type, other)
	}
	return nil
}

// lastMark is what Load compares of a stored log's last event, beside the
// number of events: its type, time and data, digested (a few words per
// session, keeping no memory of the caller's).
type lastMark struct {
	time int64
	sum  uint64
}

// markSeed seeds lastMark's digest, chosen in each process.
var markSeed = maphash.MakeSeed()

// markLast returns the mark of the last of events, zero when there are none.
func markLast(events []session.Event) lastMark {
	if len(events) == 0 {
		return lastMark{}
	}
	ev := &events[len(events)-1]
	return lastMark{time: ev.Time, sum: maphash.String(markSeed, ev.Type) ^ 31*maphash.Bytes(markSeed, ev.Data)}
}

// List implements [Store]. Sessions come ordered by createdAt; ties keep
// creation order — the order of Create calls, after the stored sessions in
// storage order. Sessions created but never appended to are included;
// those whose stored log an Append or Load found gone are not.
func (c *Coordinator) List(ctx context.Context) ([]session.Header, error) {
	if err := c.enter(ctx); err != nil {
		return nil, fmt.Errorf("%s: list sessions: %w", c.b.Kind(), err)
	}
	defer c.leave()
	c.mu.Lock()
	entries := make([]*entry, 0, len(c.sessions))
	for _, e := range c.sessions {
		if !e.gone.Load() {
			entries = append(entries, e)
		}
	}
	c.mu.Unlock()
	slices.SortFunc(entries, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(a.header.CreatedAt, b.header.CreatedAt), cmp.Compare(a.ordinal, b.ordinal))
	})
	out := make([]session.Header, len(entries))
	for i, e := range entries {
		out[i] = e.header
	}
	return out, nil
}

// Delete implements [Deleter] when the backend does (errors.ErrUnsupported
// otherwise): it removes the sessions from the backend in one call, then
// from the store. Calls on those sessions that were waiting fail with
// ErrUnknownSession.
func (c *Coordinator) Delete(ctx context.Context, ids ...string) error {
	const op = "delete"
	if err := c.enter(ctx); err != nil {
		return fmt.Errorf("%s: delete sessions: %w", c.b.Kind(), err)
	}
	defer c.leave()
	bd, ok := c.b.(Deleter)
	if !ok {
		return fmt.Errorf("%s: delete sessions: the backend cannot delete: %w", c.b.Kind(), errors.ErrUnsupported)
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	entries := make([]*entry, len(ids))
	for i, id := range ids {
		e, err := c.lookup(op, id)
		if err != nil {
			return err
		}
		entries[i] = e
	}
	// In id order, so two Deletes cannot deadlock.
	for _, e := range entries {
		e.mu.Lock()
		defer e.mu.Unlock()
	}
	var stored []string
	for i, e := range entries {
		if e.deleted {
			return c.fail(op, ids[i], ErrUnknownSession)
		}
		// A failed write may have stored a prefix: the backend decides.
		if e.stored || !e.known {
			stored = append(stored, ids[i])
		}
	}
	if len(stored) > 0 {
		if err := bd.Delete(ctx, stored...); err != nil {
			// What is stored is unknown now; read it back on next use.
			for _, e := range entries {
				e.known = false
			}
			return fmt.Errorf("%s: delete sessions %s: %w", c.b.Kind(), strings.Join(stored, ", "), err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range entries {
		e.deleted = true
		delete(c.sessions, ids[i])
	}
	return nil
}

// Close implements [Store]: it waits for calls in progress, then closes the
// backend. Sessions never appended to are dropped.
func (c *Coordinator) Close() error {
	c.life.Lock()
	defer c.life.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.b.Close()
}
