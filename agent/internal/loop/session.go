package loop

import (
	"context"
	"sync"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/session"
)

// Session is one live agent session: a root or a subagent. Its turns run one
// at a time; calling Turn concurrently on one session is an error.
type Session struct {
	rt *Runtime
	j  *journal.Journal // writes the session's log to the contract

	mu      sync.Mutex // guards running
	running bool
}

// ID returns the session id.
func (s *Session) ID() string { return s.j.ID() }

// Header returns the session's header.
func (s *Session) Header() session.Header { return s.j.Header() }

// Events returns a copy of the session's log so far. It reads the stored
// log back from the store (see journal.Journal.Events).
func (s *Session) Events(ctx context.Context) ([]session.Event, error) { return s.j.Events(ctx) }
