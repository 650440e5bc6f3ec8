// Package memory is an in-memory persistence.Store: for tests and for
// replays whose logs are only compared, never kept.
package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Store is an in-memory persistence.Store. The zero value is not usable;
// call New.
type Store struct {
	mu       sync.Mutex
	sessions map[string]*session.Log
	order    []string
	closed   bool
}

// New returns an empty store.
func New() *Store { return &Store{sessions: map[string]*session.Log{}} }

var _ persistence.Store = (*Store)(nil)

// Create implements persistence.Store.
func (s *Store) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return persistence.ErrClosed
	}
	if _, ok := s.sessions[h.ID]; ok {
		return fmt.Errorf("memory: create %s: %w", h.ID, persistence.ErrSessionExists)
	}
	if h.SeedLength < 0 || h.SeedLength > len(seed) {
		return fmt.Errorf("memory: create %s: seedLength %d with a seed of %d events: %w", h.ID, h.SeedLength, len(seed), persistence.ErrBadSeed)
	}
	if err := session.Validate(&session.Header{}, seed); err != nil {
		return fmt.Errorf("memory: create %s: seed: %w", h.ID, err)
	}
	s.sessions[h.ID] = &session.Log{Header: h, Events: slices.Clone(seed)}
	s.order = append(s.order, h.ID)
	return nil
}

// Append implements persistence.Store.
func (s *Store) Append(ctx context.Context, id string, events []session.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return persistence.ErrClosed
	}
	l, ok := s.sessions[id]
	if !ok {
		return fmt.Errorf("memory: append to %s: %w", id, persistence.ErrUnknownSession)
	}
	next := int64(len(l.Events))
	for i := range events {
		if events[i].Seq != next+int64(i) {
			return fmt.Errorf("memory: append to %s: event %d has seq %d, expected %d: %w", id, i, events[i].Seq, next+int64(i), persistence.ErrOutOfOrder)
		}
	}
	l.Events = append(l.Events, events...)
	return nil
}

// Load implements persistence.Store.
func (s *Store) Load(ctx context.Context, id string) (*session.Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, persistence.ErrClosed
	}
	l, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("memory: load %s: %w", id, persistence.ErrUnknownSession)
	}
	return &session.Log{Header: l.Header, Events: slices.Clone(l.Events)}, nil
}

// List implements persistence.Store.
func (s *Store) List(ctx context.Context) ([]session.Header, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, persistence.ErrClosed
	}
	out := make([]session.Header, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.sessions[id].Header)
	}
	return out, nil
}

// Close implements persistence.Store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
