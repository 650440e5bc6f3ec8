package memory

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
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

// Backend keeps session logs in memory as their JSONL bytes read back: a
// log is kept as the events that reading its bytes gives, so Read decodes
// nothing, and as the bytes themselves once they hold what no event stands
// for (a torn tail, an event that would read back otherwise than written).
// Either way Read returns what decoding the bytes returns. It is safe for
// concurrent use; Close keeps the logs, so the Backend outlives its stores.
type Backend struct {
	mu    sync.Mutex
	logs  map[string]*memLog
	order []string
	data  arena // the data of every kept event
}

type memLog struct {
	header session.Header // as written, for Sessions
	read   session.Header // as its line reads back
	raw    []byte         // the log's bytes, once kept as bytes; nil while kept as events
	events eventLog       // while raw is nil
}

var (
	_ persistence.Backend = (*Backend)(nil)
	_ persistence.Deleter = (*Backend)(nil)
)

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
	var out *session.Log
	var raw []byte
	switch {
	case !ok:
	case l.raw == nil && l.read.SeedLength <= l.events.count:
		h := l.read
		h.Extra = maps.Clone(h.Extra)
		out = &session.Log{Path: "memory:" + id, Header: h, Events: l.events.all(&b.data)}
	default:
		// Bytes, or a seedLength past the events, which the reader
		// refuses in its words.
		raw = l.bytes(&b.data)
	}
	b.mu.Unlock()
	switch {
	case !ok:
		return nil, fmt.Errorf("memory: read session %s: %w", id, persistence.ErrUnknownSession)
	case out != nil:
		return out, nil
	}
	return session.Read(bytes.NewReader(raw), "memory:"+id)
}

// Write implements persistence.Backend.
func (b *Backend) Write(ctx context.Context, w *persistence.Batch) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := w.Header.ID
	l, ok := b.logs[id]
	shared := 0
	switch {
	case w.New && ok:
		return fmt.Errorf("memory: write session %s: %w", id, persistence.ErrSessionExists)
	case w.New:
		l = &memLog{header: *w.Header}
		line := session.AppendHeader(nil, w.Header)
		if l.read.UnmarshalJSON(line[:len(line)-1]) != nil {
			l.raw = line // Read reports it, as it reads the bytes
		}
		b.logs[id] = l
		b.order = append(b.order, id)
		if p := b.logs[w.Header.ParentSession]; p != nil && p.raw == nil && l.raw == nil {
			// A fork's seed is its parent's first events: share what is.
			shared = l.events.share(&p.events, &b.data, w.Events)
		}
	case !ok:
		return fmt.Errorf("memory: write session %s: %w", id, persistence.ErrUnknownSession)
	case l.raw == nil:
		// Events end every line: nothing is torn or unterminated.
	case w.Torn != nil:
		// Cut the torn line: it follows the last newline.
		l.raw = l.raw[:bytes.LastIndexByte(l.raw, '\n')+1]
	case len(l.raw) > 0 && l.raw[len(l.raw)-1] != '\n':
		l.raw = append(l.raw, '\n')
	}
	for i := shared; i < len(w.Events); i++ {
		e := &w.Events[i]
		if l.raw == nil && !l.events.keep(e, &b.data) {
			l.raw = l.bytes(&b.data)
			l.events = eventLog{}
		}
		if l.raw != nil {
			l.raw = session.AppendEvent(l.raw, e)
		}
	}
	return nil
}

// Delete implements persistence.Deleter: the logs go at once (their data
// stays in the arena, which a fork child's events may share).
func (b *Backend) Delete(ctx context.Context, ids ...string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		delete(b.logs, id)
	}
	b.order = slices.DeleteFunc(b.order, func(id string) bool { return b.logs[id] == nil })
	return nil
}

// bytes returns the log's bytes: what a JSONL backend holds.
func (l *memLog) bytes(data *arena) []byte {
	if l.raw != nil {
		return bytes.Clone(l.raw)
	}
	return session.Encode(&l.header, l.events.all(data))
}

// Close implements persistence.Source. It keeps the logs.
func (b *Backend) Close() error { return nil }
