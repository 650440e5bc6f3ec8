package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// A broken runtime is agent.Reference handed an Env whose Store (or
// Driver, or Clock) misbehaves the way a hand-written runtime might.

// mutation says what a broken store does to what the runtime writes.
type mutation struct {
	header func(h *session.Header)                    // the header at Create
	seed   func(seed []session.Event) []session.Event // the seed at Create (a copy)
	// seedFrom replaces a child's seed at Create, given what its parent
	// had stored by then.
	seedFrom func(h *session.Header, parent, seed []session.Event) []session.Event
	// restamp sets a child's seedLength to the length of the seed the
	// mutations left: a runtime that stamps what it hands over.
	restamp bool
	// drop leaves events out, seeds included.
	drop func(e *session.Event) bool
	// insert returns an appended batch with events added or taken out
	// (a copy). Appended events are renumbered densely after drop and
	// insert, from the end of the seed as stored.
	insert func(s *created, events []session.Event) []session.Event
	// events rewrites every appended batch (a copy), after renumbering.
	events func(s *created, events []session.Event)
	// replayOnly applies the mutation in replays only, never while
	// recording: a runtime that behaves otherwise when replayed.
	replayOnly bool
}

// created is a session as the runtime created it.
type created struct {
	header    session.Header
	inherited int // the last turn of its seed
}

type brokenStore struct {
	persistence.Store
	m        mutation
	mu       sync.Mutex
	sessions map[string]*created
	next     map[string]int64 // the next seq to store: events are renumbered densely
	stored   map[string][]session.Event
}

func (b *brokenStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	c := &created{header: h, inherited: journal.LastTurn(seed)}
	seed = slices.Clone(seed)
	if b.m.drop != nil {
		kept := slices.DeleteFunc(seed, func(e session.Event) bool { return b.m.drop(&e) })
		if h.SeedLength == len(seed) {
			h.SeedLength = len(kept)
		}
		seed = kept
		for i := range seed {
			seed[i].Seq = int64(i)
		}
	}
	if b.m.seed != nil {
		seed = b.m.seed(seed)
	}
	if b.m.seedFrom != nil && h.ParentSession != "" {
		b.mu.Lock()
		parent := slices.Clone(b.stored[h.ParentSession])
		b.mu.Unlock()
		seed = b.m.seedFrom(&h, parent, seed)
	}
	if b.m.restamp && h.ParentSession != "" {
		h.SeedLength = len(seed)
	}
	if b.m.header != nil {
		b.m.header(&h)
	}
	b.mu.Lock()
	b.sessions[c.header.ID] = c
	b.next[c.header.ID] = int64(len(seed))
	b.stored[c.header.ID] = slices.Clone(seed)
	b.mu.Unlock()
	return b.Store.Create(ctx, h, seed)
}

func (b *brokenStore) Append(ctx context.Context, id string, events []session.Event) error {
	events = slices.Clone(events)
	b.mu.Lock()
	c := b.sessions[id]
	if b.m.drop != nil {
		events = slices.DeleteFunc(events, func(e session.Event) bool { return b.m.drop(&e) })
	}
	if b.m.insert != nil {
		events = b.m.insert(c, events)
	}
	// Dense from the end of the seed as stored, which may have changed.
	for i := range events {
		events[i].Seq = b.next[id]
		b.next[id]++
	}
	b.mu.Unlock()
	if b.m.events != nil {
		b.m.events(c, events)
	}
	b.mu.Lock()
	b.stored[id] = append(b.stored[id], events...)
	b.mu.Unlock()
	return b.Store.Append(ctx, id, events)
}

// broken returns a factory of reference runtimes whose store applies m.
func broken(m mutation) func() agentsnap.Runtime {
	return func() agentsnap.Runtime {
		return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			e := *env
			if !m.replayOnly || !env.Recording {
				e.Store = &brokenStore{Store: env.Store, m: m, sessions: map[string]*created{}, next: map[string]int64{}, stored: map[string][]session.Event{}}
			}
			return agent.Reference.Run(ctx, &e)
		})
	}
}

// wrapped returns a factory of reference runtimes whose Env wrap changes.
func wrapped(wrap func(env *agentsnap.Env)) func() agentsnap.Runtime {
	return func() agentsnap.Runtime {
		return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			e := *env
			wrap(&e)
			return agent.Reference.Run(ctx, &e)
		})
	}
}

// failing is a runtime that runs well and then returns an error anyway.
func failing() agentsnap.Runtime {
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		if err := agent.Reference.Run(ctx, env); err != nil {
			return err
		}
		return errors.New("myagent: flushing telemetry: connection refused")
	})
}

// sharedClock is a clock that a runtime keeps between runs: every run
// stamps other times.
func sharedClock() func() agentsnap.Runtime {
	var ticks atomic.Int64
	return wrapped(func(env *agentsnap.Env) {
		env.Clock = func() time.Time { return agentsnap.Epoch.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }
	})
}

// anonymousDriver forgets which session calls the model.
type anonymousDriver struct{ llm.Driver }

func (d anonymousDriver) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	r := *req
	r.Session = llm.SessionRef{ID: req.Session.ID}
	return d.Driver.Stream(ctx, &r)
}

// Event rewriting helpers. Each returns new bytes: the runtime's own
// events must not change under it.

func decodeTo[T any](e *session.Event) T {
	var v T
	_ = e.Decode(&v)
	return v
}

func encode(v any) json.RawMessage {
	b, err := session.MarshalData(v)
	if err != nil {
		panic(err)
	}
	return b
}

// setInt sets the integer member key of e's data with f of its value.
func setInt(e *session.Event, key string, f func(int) int) {
	var m map[string]json.RawMessage
	if json.Unmarshal(e.Data, &m) != nil || m[key] == nil {
		return
	}
	var n int
	_ = json.Unmarshal(m[key], &n)
	m[key], _ = json.Marshal(f(n))
	e.Data, _ = json.Marshal(m)
}

// each applies f to the events of type typ.
func each(typ string, f func(e *session.Event)) func(*created, []session.Event) {
	return func(_ *created, evs []session.Event) {
		for i := range evs {
			if evs[i].Type == typ {
				f(&evs[i])
			}
		}
	}
}

func ofType(typ string) func(e *session.Event) bool {
	return func(e *session.Event) bool { return e.Type == typ }
}

func isChild(h *session.Header) bool { return h.ParentSession != "" }

func endKind(from, to string) func(*created, []session.Event) {
	return each(session.TypeTurnEnd, func(e *session.Event) {
		d := decodeTo[session.TurnEndData](e)
		if d.Reason.Kind == from {
			d.Reason.Kind = to
			e.Data = encode(d)
		}
	})
}
