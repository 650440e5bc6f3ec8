package loop

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/session"
)

// Runtime runs agent sessions. It is safe for concurrent use.
type Runtime struct {
	cfg  Config
	jcfg journal.Config // how sessions are written: store, clock, ids, cwd, preset
}

// New returns a runtime for cfg.
func New(cfg Config) (*Runtime, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Runtime{cfg: c, jcfg: journal.Config{Store: c.Store, Clock: c.Clock, IDs: c.IDs, Cwd: c.Cwd, Preset: c.Preset, ToolReplay: c.ToolReplay}}, nil
}

// NewSession creates a root session. Nothing is stored until its first turn.
func (rt *Runtime) NewSession(ctx context.Context) (*Session, error) {
	j, err := journal.NewRoot(ctx, rt.jcfg)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return &Session{rt: rt, j: j}, nil
}

// Resume rebuilds the session id from its stored log so it can take more
// turns. Its header — seedLength and createdAt included — comes back as
// persisted, never recomputed. A log that ends inside a turn is refused; a
// persistence.Store repairs interrupted turns on load.
func (rt *Runtime) Resume(ctx context.Context, id string) (*Session, error) {
	j, err := journal.Resume(ctx, rt.jcfg, id)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return &Session{rt: rt, j: j}, nil
}

// Run runs prompts as consecutive user turns of a new root session and
// returns the session. It stops at the first turn that does not complete.
func (rt *Runtime) Run(ctx context.Context, prompts ...string) (*Session, []TurnResult, error) {
	s, err := rt.NewSession(ctx)
	if err != nil {
		return nil, nil, err
	}
	var results []TurnResult
	for _, p := range prompts {
		res, err := s.Turn(ctx, p)
		results = append(results, res)
		if err != nil {
			return s, results, err
		}
		if res.Reason.Kind != session.TurnCompleted {
			return s, results, fmt.Errorf("agent: session %s turn %d ended %s: %s", s.ID(), res.Turn, res.Reason.Kind, res.Reason.Message)
		}
	}
	return s, results, nil
}
