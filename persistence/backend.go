package persistence

import (
	"context"

	"github.com/agentsnap/agentsnap/session"
)

// Source reads stored sessions exactly as they are stored: no crash repair,
// no closers. Inspection and conversion read through a Source; a
// [Coordinator] reads through one too and repairs on top.
//
// Methods are safe for concurrent use. Their errors name the storage (a
// file, a database) and the session, so a [Coordinator] returns them as
// they are.
type Source interface {
	// Sessions returns the headers of the stored sessions in storage order
	// (SQLite insertion order, JSONL file order).
	Sessions(ctx context.Context) ([]session.Header, error)

	// Read returns the stored log of session id. A torn last line (JSONL) is
	// dropped and reported in Log.Torn; anything else that is not a valid
	// log is an error naming where it is. An unknown id fails with
	// ErrUnknownSession.
	Read(ctx context.Context, id string) (*session.Log, error)

	// Close releases the storage. It is safe to call twice.
	Close() error
}

// Backend is the storage under a [Coordinator]: a Source that can also
// write. The coordinator has already validated and ordered every batch, so a
// backend only makes bytes durable.
//
// The coordinator never calls Write for one session concurrently with
// another Write or a Read of that session; calls for different sessions may
// run in parallel.
type Backend interface {
	Source

	// Write makes one batch durable before it returns. A batch is written
	// as a whole or, after a crash, as a prefix of its events (JSONL) or
	// not at all (SQLite); a failed Write may have written a prefix.
	// Write must not keep b once it returns: the coordinator reuses it.
	Write(ctx context.Context, b *Batch) error

	// Kind names the backend in errors: "jsonl", "sqlite", "memory".
	Kind() string

	// Where says where session id is or would be stored, for errors: a
	// file path, a database path.
	Where(id string) string
}

// Batch is one durable write of one session.
type Batch struct {
	// Header is the session's header; a backend writes it only when New.
	Header *session.Header

	// New is true for the first write of a session: the backend stores
	// Header, then Events, which start at seq 0 with the seed.
	New bool

	// Torn is the torn last line the stored log ends with, as Read
	// reported it, or nil. A backend that can tear (JSONL) cuts it before
	// writing; no Append ever acknowledged those bytes.
	Torn *session.TornLine

	// Events continue the stored log: their seqs are dense and the first is
	// the number of events stored.
	Events []session.Event
}
