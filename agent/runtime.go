package agent

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/session"
)

// Runtime runs agent sessions. It is safe for concurrent use.
type Runtime struct {
	cfg Config
}

// New returns a runtime for cfg.
func New(cfg Config) (*Runtime, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Runtime{cfg: c}, nil
}

// NewSession creates a root session. Nothing is stored until its first turn.
func (rt *Runtime) NewSession(ctx context.Context) (*Session, error) {
	h := session.Header{
		ID:          rt.cfg.IDs.SessionID("", ""),
		CreatedAt:   rt.cfg.Clock().UnixMilli(),
		Cwd:         rt.cfg.Cwd,
		AgentPreset: rt.cfg.Preset,
	}
	return rt.create(ctx, h, nil)
}

func (rt *Runtime) create(ctx context.Context, h session.Header, seed []session.Event) (*Session, error) {
	if err := rt.cfg.Store.Create(ctx, h, seed); err != nil {
		return nil, fmt.Errorf("agent: create session %s: %w", h.ID, err)
	}
	s := &Session{rt: rt, header: h, events: seed, stored: len(seed)}
	s.addMessages(conversation(seed)...)
	s.turn = lastTurn(seed)
	return s, nil
}

// Resume rebuilds the session id from its stored log so it can take more
// turns. Its header — seedLength and createdAt included — comes back as
// persisted, never recomputed. A log that ends inside a turn is refused; a
// persistence.Store repairs interrupted turns on load.
func (rt *Runtime) Resume(ctx context.Context, id string) (*Session, error) {
	l, err := rt.cfg.Store.Load(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("agent: resume %s: %w", id, err)
	}
	if open, turn := openTurn(l.Events); open {
		return nil, fmt.Errorf("agent: resume %s: the log ends inside turn %d (no turn/end); load it through a store that repairs interrupted turns", id, turn)
	}
	s := &Session{
		rt:     rt,
		header: l.Header,
		events: l.Events,
		stored: len(l.Events),
		turn:   lastTurn(l.Events),
	}
	s.addMessages(conversation(l.Events)...)
	return s, nil
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

// conversation rebuilds the messages a model saw from a session's events.
func conversation(events []session.Event) []session.Message {
	var msgs []session.Message
	for i := range events {
		e := &events[i]
		switch e.Type {
		case session.TypeUserMessage:
			var m session.Message
			if e.Decode(&m) == nil {
				msgs = append(msgs, m)
			}
		case session.TypeAssistantMessage:
			var d session.AssistantMessageData
			if e.Decode(&d) == nil {
				msgs = append(msgs, d.Message)
			}
		case session.TypeToolResult:
			var d session.ToolResultData
			if e.Decode(&d) == nil {
				msgs = append(msgs, d.Message)
			}
		}
	}
	return msgs
}

// lastTurn returns the number of the last turn started in events.
func lastTurn(events []session.Event) int {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == session.TypeTurnStart {
			var d session.TurnStartData
			if events[i].Decode(&d) == nil {
				return d.Turn
			}
		}
	}
	return 0
}

// openTurn reports whether the last turn/start has no turn/end after it.
func openTurn(events []session.Event) (bool, int) {
	for i := len(events) - 1; i >= 0; i-- {
		switch events[i].Type {
		case session.TypeTurnEnd:
			return false, 0
		case session.TypeTurnStart:
			var d session.TurnStartData
			_ = events[i].Decode(&d)
			return true, d.Turn
		}
	}
	return false, 0
}
