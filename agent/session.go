package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Session is one live agent session: a root or a subagent. Its turns run one
// at a time; calling Turn concurrently on one session is an error.
type Session struct {
	rt     *Runtime
	header session.Header

	mu       sync.Mutex // guards running and events (appended by the turn's goroutine only)
	running  bool
	events   []session.Event // the whole log, seed included
	stored   int             // events already appended to the store
	messages []session.Message
	digests  []string // sha256 of each message's JSON, for request/header
	turn     int
}

// ID returns the session id.
func (s *Session) ID() string { return s.header.ID }

// Header returns the session's header.
func (s *Session) Header() session.Header { return s.header }

// Events returns a copy of the session's log so far.
func (s *Session) Events() []session.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]session.Event(nil), s.events...)
}

// ref returns the lineage the session's model calls carry.
func (s *Session) ref() llm.SessionRef {
	return llm.SessionRef{
		ID:           s.header.ID,
		ParentID:     s.header.ParentSession,
		ParentCallID: s.header.ParentCallID,
		Mode:         s.header.Mode,
		Depth:        s.header.DelegationDepth,
	}
}

// emit appends an event to the in-memory log; flush makes it durable.
func (s *Session) emit(typ string, payload any) {
	e, err := session.NewEvent(typ, payload)
	if err != nil {
		// Payloads are this package's own types; they always encode.
		panic(err)
	}
	e.Time = s.rt.cfg.Clock().UnixMilli()
	s.mu.Lock()
	e.Seq = int64(len(s.events))
	s.events = append(s.events, e)
	s.mu.Unlock()
}

// flush appends the events not yet stored. It ignores ctx cancellation so
// that an aborted turn still records how it ended.
func (s *Session) flush(ctx context.Context) error {
	if s.stored == len(s.events) {
		return nil
	}
	batch := s.events[s.stored:]
	if err := s.rt.cfg.Store.Append(context.WithoutCancel(ctx), s.header.ID, batch); err != nil {
		return fmt.Errorf("agent: session %s: storing events %d-%d: %w", s.header.ID, s.stored, len(s.events)-1, err)
	}
	s.stored = len(s.events)
	return nil
}

// addMessages appends to the conversation and digests each message once, so
// a request/header costs O(messages) hashing of digests, not re-encoding the
// whole conversation on every call.
func (s *Session) addMessages(msgs ...session.Message) {
	for _, m := range msgs {
		s.messages = append(s.messages, m)
		s.digests = append(s.digests, messageDigest(m))
	}
}
