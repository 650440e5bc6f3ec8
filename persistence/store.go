package persistence

import (
	"context"
	"errors"
	"io/fs"

	"github.com/agentsnap/agentsnap/internal/par"
	"github.com/agentsnap/agentsnap/session"
)

// Store keeps session logs.
//
// All methods are safe for concurrent use; appends to one session are
// ordered, appends to different sessions may run in parallel. The caller
// closes a Store when done; Close is safe to call twice.
type Store interface {
	// Create registers a new session whose log starts with seed (the
	// inherited prefix of a fork child, or a whole stored log when a session
	// is resumed into a new one). h.SeedLength is stored as given — it is
	// never inferred from seed — and must not exceed len(seed). Nothing need
	// be written until the first Append (lazy materialisation).
	Create(ctx context.Context, h session.Header, seed []session.Event) error

	// Append adds events to a session. The first event's seq must be the
	// next seq of the session (seqs stay dense from 0). It returns only when
	// the events are durable.
	Append(ctx context.Context, id string, events []session.Event) error

	// Load returns the session's header and all its events. A stored log
	// that ends inside a turn (the process died mid-turn) comes back with
	// that turn closed (see Closers); Load never writes.
	Load(ctx context.Context, id string) (*session.Log, error)

	// List returns the headers of all sessions, in creation order: by
	// createdAt, ties in the order the sessions were created (for sessions
	// read back from storage, the order they were stored; a JSONL folder,
	// which keeps no such order, lists them by file name).
	List(ctx context.Context) ([]session.Header, error)

	// Close releases the store. Later calls fail with ErrClosed.
	Close() error
}

// Deleter is implemented by a Store that can remove sessions, and by a
// Backend that can, which a [Coordinator] needs for its Delete. A recording
// that is refused deletes the sessions it stored through one.
type Deleter interface {
	// Delete removes the sessions ids with everything stored of them, all
	// of them or none: a crash in the middle leaves storage that opens as
	// if all of them were deleted, or none. On a Store an id it does not
	// know fails the call with ErrUnknownSession and deletes nothing; a
	// Backend skips the ids it does not hold (the Coordinator checked them).
	// A deleted id may be created again.
	Delete(ctx context.Context, ids ...string) error
}

// Errors every Store returns (wrapped), for errors.Is.
var (
	ErrUnknownSession = errors.New("unknown session")
	ErrSessionExists  = errors.New("session already exists")
	ErrOutOfOrder     = errors.New("append out of order")
	ErrClosed         = errors.New("store is closed")
	ErrBadSeed        = errors.New("seedLength past the end of the seed")

	// ErrInvalid reports a header or event that no reader could read back
	// (an empty type, a member that is not JSON, an unknown mode, ...).
	ErrInvalid = errors.New("invalid session data")
	// ErrReadOnly reports a write to storage opened read-only.
	ErrReadOnly = errors.New("storage is open read-only")
)

// LoadAll loads every session of store, in List order. Many sessions load
// on every processor (a Store is safe for concurrent use); the error is
// the first session's in that order.
func LoadAll(ctx context.Context, store Store) ([]*session.Log, error) {
	headers, err := store.List(ctx)
	if err != nil {
		return nil, err
	}
	logs, errs := make([]*session.Log, len(headers)), make([]error, len(headers))
	load := func(i int) { logs[i], errs[i] = store.Load(ctx, headers[i].ID) }
	if len(headers) >= parallelLoads {
		par.For(len(headers), load)
	} else {
		for i := range headers {
			if load(i); errs[i] != nil {
				break
			}
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return logs, nil
}

// ReadAll reads every session of src, in storage order (Sessions): what
// a reader of storage opened read-only (inspect, convert) goes through.
// The error is the first session's.
func ReadAll(ctx context.Context, src Source) ([]*session.Log, error) {
	headers, err := src.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	logs := make([]*session.Log, 0, len(headers))
	for _, h := range headers {
		l, err := src.Read(ctx, h.ID)
		if err != nil {
			return nil, err
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// parallelLoads is how many sessions LoadAll loads in parallel from: a
// replay of a few sessions (a check) loads them faster on one goroutine.
const parallelLoads = 64

// ErrAdvised matches an error that says itself what to do (a damaged
// database, one of another version or program): OpenAdvice adds nothing
// to it. Advised marks such an error.
var ErrAdvised = errors.New("the error says what to do")

// Advised returns err marked as saying what to do; its message is err's.
func Advised(err error) error { return advised{err} }

type advised struct{ error }

func (a advised) Unwrap() error        { return a.error }
func (a advised) Is(target error) bool { return target == ErrAdvised }

// OpenAdvice says what to do about err, the error of a store that does not
// open, for a message that names the store (the jsonl and sqlite stores'
// errors carry its path). An error it does not recognise gets the advice
// for a path the CLI opens (--store jsonl:DIR, sqlite:PATH), which is
// OpenAdvice(nil): a caller whose store is another's (Options.Store's
// function) compares with it, and gives its own advice instead. An error
// that says itself what to do (ErrAdvised) gets "".
func OpenAdvice(err error) string {
	var pe *session.ParseError
	switch {
	case errors.Is(err, ErrAdvised):
		return ""
	case errors.As(err, &pe):
		return "the store holds a file that is not an agentsnap session log (named above): give a new or empty folder, or move that file out of it"
	case errors.Is(err, fs.ErrNotExist):
		return "create the folder it names, or give a path in a folder that exists"
	case errors.Is(err, fs.ErrPermission):
		// A store is read as well as written: one this user may write but
		// not read is as broken as one it may not write.
		return "give a path this user can read and write, or make it readable and writable by this user (fix its permissions)"
	}
	return "give a path this user can write: a new or empty folder (jsonl:DIR) or database file (sqlite:PATH) in a folder that exists, or a store agentsnap wrote"
}
