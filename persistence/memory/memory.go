package memory

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Store is an in-memory persistence.Store. Make one with New or Open.
type Store struct {
	*persistence.Coordinator
}

// New returns an empty store.
func New() *Store { return Open(NewBackend()) }

// Open returns a store over b, holding whatever b holds: a store closed and
// opened again on the same Backend sees what a reopened file store sees.
func Open(b *Backend) *Store {
	// Listing a memory backend cannot fail.
	c, err := persistence.New(context.Background(), b)
	if err != nil {
		panic(err)
	}
	return &Store{c}
}

// Backend keeps session logs as JSONL bytes in memory. It is safe for
// concurrent use; Close keeps the logs, so the Backend outlives its stores.
type Backend struct {
	mu    sync.Mutex
	logs  map[string]*memLog
	order []string
}

type memLog struct {
	header session.Header
	buf    []byte // the log's bytes, header line first
}

var _ persistence.Backend = (*Backend)(nil)

// NewBackend returns an empty backend.
func NewBackend() *Backend { return &Backend{logs: map[string]*memLog{}} }

// Kind implements persistence.Backend.
func (b *Backend) Kind() string { return "memory" }

// Where implements persistence.Backend; a memory log has no location.
func (b *Backend) Where(string) string { return "" }

// Sessions implements persistence.Source.
func (b *Backend) Sessions(ctx context.Context) ([]session.Header, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]session.Header, len(b.order))
	for i, id := range b.order {
		out[i] = b.logs[id].header
	}
	return out, nil
}

// Read implements persistence.Source.
func (b *Backend) Read(ctx context.Context, id string) (*session.Log, error) {
	b.mu.Lock()
	l, ok := b.logs[id]
	var buf []byte
	if ok {
		buf = bytes.Clone(l.buf)
	}
	b.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("memory: read session %s: %w", id, persistence.ErrUnknownSession)
	}
	return session.Read(bytes.NewReader(buf), "memory:"+id)
}

// Write implements persistence.Backend.
func (b *Backend) Write(ctx context.Context, w *persistence.Batch) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := w.Header.ID
	l, ok := b.logs[id]
	switch {
	case w.New && ok:
		return fmt.Errorf("memory: write session %s: %w", id, persistence.ErrSessionExists)
	case w.New:
		l = &memLog{header: *w.Header, buf: session.AppendHeader(nil, w.Header)}
		b.logs[id] = l
		b.order = append(b.order, id)
	case !ok:
		return fmt.Errorf("memory: write session %s: %w", id, persistence.ErrUnknownSession)
	case w.Torn != nil:
		// Cut the torn line: it follows the last newline.
		l.buf = l.buf[:bytes.LastIndexByte(l.buf, '\n')+1]
	case len(l.buf) > 0 && l.buf[len(l.buf)-1] != '\n':
		l.buf = append(l.buf, '\n')
	}
	for i := range w.Events {
		l.buf = session.AppendEvent(l.buf, &w.Events[i])
	}
	return nil
}

// Close implements persistence.Source. It keeps the logs.
func (b *Backend) Close() error { return nil }
