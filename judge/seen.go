package judge

import (
	"context"
	"sync"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// seenStore is the store of a replay judged from what start-up kept
// (judgeKept) as the runtime writes to it: each session's events are
// digested as they are written, so the verdict after the run digests none
// of them again. What the verdict loads is checked against what was seen:
// the store may close a turn left open on Load, and those events are
// taken then (digestOf).
//
// The transcript is still rendered after the run, from the loaded logs:
// parts rendered while serving were held beside everything else, and
// took serve's peak memory past aimock's (issue 22 asks for both).
//
// It watches only judge's own memory store, which loads every event as it
// was appended.
type seenStore struct {
	persistence.Store
	mu   sync.Mutex
	logs map[string]*seenLog
}

// seenLog is what a seenStore saw of one session.
type seenLog struct {
	mu sync.Mutex
	d  digester
	// lost is set when a write failed: what the store holds of the
	// session is not known, and the verdict goes through its log.
	lost bool
}

// watched is the store the runtime writes to: store, or, for a replay
// judged from what start-up kept into judge's own memory store (own), a
// seenStore over it, o.seen, so that the verdict after the run goes
// through the events of none but the sessions that differ.
func (o *Outcome) watched(store persistence.Store, own bool) persistence.Store {
	if o.prepared.kept == nil || !own {
		return store
	}
	o.seen = newSeenStore(store)
	return o.seen
}

func newSeenStore(s persistence.Store) *seenStore {
	return &seenStore{Store: s, logs: map[string]*seenLog{}}
}

func (s *seenStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if err := s.Store.Create(ctx, h, seed); err != nil {
		return err
	}
	l := &seenLog{}
	l.add(seed)
	s.mu.Lock()
	s.logs[h.ID] = l
	s.mu.Unlock()
	return nil
}

func (s *seenStore) Append(ctx context.Context, id string, events []session.Event) error {
	err := s.Store.Append(ctx, id, events)
	s.mu.Lock()
	l := s.logs[id]
	s.mu.Unlock()
	if l == nil {
		return err
	}
	if err != nil {
		l.mu.Lock()
		l.lost = true
		l.mu.Unlock()
		return err
	}
	l.add(events)
	return nil
}

func (l *seenLog) add(events []session.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return
	}
	l.d.add(events)
	l.d.flush()
	l.d.release()
}

// of is what s saw of the session of the loaded log rl, or nil when it
// did not see each of its events but those Load adds.
func (s *seenStore) of(rl *session.Log) *seenLog {
	if s == nil || rl == nil {
		return nil
	}
	s.mu.Lock()
	l := s.logs[rl.Header.ID]
	s.mu.Unlock()
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost || l.d.n > len(rl.Events) {
		return nil
	}
	return l
}

// digestOf is the digest of rl's events, from what s saw of them when it
// saw them (of), else digested now.
func (s *seenStore) digestOf(rl *session.Log) eventsDigest {
	l := s.of(rl)
	if l == nil {
		return digestEvents(rl.Events)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.d
	d.add(rl.Events[d.n:]) // the events Load added
	sum := d.sum()
	d.release()
	return sum
}

// whole is how many of the loaded logs ordered s saw written whole (of).
func (s *seenStore) whole(ordered []*session.Log) int {
	n := 0
	for _, rl := range ordered {
		if s.of(rl) != nil {
			n++
		}
	}
	return n
}
