package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

func concurrencyChecks() []check {
	return []check{
		{"concurrency: appends to many sessions at once, each in order, while others read", concurrentSessions},
	}
}

func racingChecks() []check {
	return []check{
		{"racing appends: lets exactly one of several racing appends of the same seq through", racingAppends},
	}
}

// tick is a small event of session i.
func tick(i int, seq int64) session.Event {
	return Event(seq, "x/tick", map[string]any{"session": i, "seq": seq})
}

// collected keeps the errors of goroutines.
type collected struct {
	mu   sync.Mutex
	list []error
}

// do runs fn, a goroutine's work, and keeps its error or panic.
func (c *collected) do(fn func() error) {
	if err := protect(fn); err != nil {
		c.mu.Lock()
		c.list = append(c.list, err)
		c.mu.Unlock()
	}
}

func (c *collected) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.list...)
}

func concurrentSessions(e *env) error {
	const sessions, batches, perBatch = 8, 6, 4
	want := make([]*session.Log, sessions)
	for i := range want {
		want[i] = &session.Log{Header: SpawnHeader("root", fmt.Sprintf("call_%d", i))}
		for seq := range int64(batches * perBatch) {
			want[i].Events = append(want[i].Events, tick(i, seq))
		}
	}
	var failed collected
	done := make(chan struct{})
	var readers sync.WaitGroup
	for _, w := range want[:2] {
		readers.Go(func() { failed.do(func() error { return readUntil(e, done, w.Header.ID, perBatch) }) })
	}
	var writers sync.WaitGroup
	for _, w := range want {
		writers.Go(func() { failed.do(func() error { return writeSession(e, w, perBatch) }) })
	}
	writers.Wait()
	close(done)
	readers.Wait()
	if err := failed.err(); err != nil {
		return err
	}

	for _, w := range want {
		if _, err := e.wantLog("after the concurrent appends", w.Header.ID, w); err != nil {
			return err
		}
	}
	if err := e.reopen(); err != nil {
		return err
	}
	ids, err := e.list()
	if err != nil {
		return err
	}
	if len(ids) != sessions {
		return fmt.Errorf("after a reopen: List() = %d sessions %q, wanted %d", len(ids), ids, sessions)
	}
	for _, w := range want {
		if _, err := e.wantLog("after a reopen", w.Header.ID, w); err != nil {
			return err
		}
	}
	return nil
}

// writeSession creates the session of w and appends its events in batches
// of perBatch.
func writeSession(e *env, w *session.Log, perBatch int) error {
	if err := e.store.Create(e.ctx, w.Header, nil); err != nil {
		return fmt.Errorf("Create(%q) = %w, wanted nil", w.Header.ID, err)
	}
	for batch := range slices.Chunk(w.Events, perBatch) {
		if err := e.store.Append(e.ctx, w.Header.ID, batch); err != nil {
			return fmt.Errorf("Append(%q, %s) = %w, wanted nil", w.Header.ID, span(batch), err)
		}
	}
	return nil
}

// readUntil lists and loads session id until done is closed, checking that
// every load sees whole batches of perBatch events.
func readUntil(e *env, done <-chan struct{}, id string, perBatch int) error {
	for {
		select {
		case <-done:
			return nil
		default:
		}
		if _, err := e.store.List(e.ctx); err != nil {
			return fmt.Errorf("List() while sessions are appended to = %w, wanted nil", err)
		}
		l, err := e.store.Load(e.ctx, id)
		if err != nil {
			if err := wantErr(fmt.Sprintf("Load(%q) while it is appended to", id), err, persistence.ErrUnknownSession); err != nil {
				return fmt.Errorf("%w (a load succeeds or the session is not created yet)", err)
			}
			continue
		}
		if n := len(l.Events); n%perBatch != 0 {
			return fmt.Errorf("Load(%q) while it is appended to = %d events, wanted a multiple of %d (a load sees whole batches)", id, n, perBatch)
		}
	}
}

func racingAppends(e *env) error {
	const rounds, racers = 12, 4
	if err := e.create(RootHeader("root"), nil); err != nil {
		return err
	}
	for seq := range int64(rounds) {
		var won, lost atomic.Int32
		var failed collected
		start := make(chan struct{})
		var wg sync.WaitGroup
		for r := range racers {
			wg.Go(func() {
				failed.do(func() error {
					<-start
					err := e.store.Append(e.ctx, "root", []session.Event{tick(r, seq)})
					switch {
					case err == nil:
						won.Add(1)
					case errors.Is(err, persistence.ErrOutOfOrder):
						lost.Add(1)
					default:
						return fmt.Errorf("round %d: Append(%q, [seq %d]) = %w, wanted nil or an error matching persistence.ErrOutOfOrder", seq, "root", seq, err)
					}
					return nil
				})
			})
		}
		close(start)
		wg.Wait()
		if err := failed.err(); err != nil {
			return err
		}
		if w, l := won.Load(), lost.Load(); w != 1 || l != racers-1 {
			return fmt.Errorf("round %d: %d racing Appends of seq %d: %d succeeded and %d failed with persistence.ErrOutOfOrder, wanted 1 and %d",
				seq, racers, seq, w, l, racers-1)
		}
	}
	if err := e.reopen(); err != nil {
		return err
	}
	return e.wantEvents("after a reopen", "root", rounds)
}
