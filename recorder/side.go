package recorder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// sideStore is the store a recording runs on when Options.Store is set:
// every call goes to the recording's own memory store, which the fixture is
// written from, and to the side store behind a guard. A batch that holds a
// secret never reaches the side store: the append fails, the recording is
// refused, and the sessions it had created there are deleted, so a refused
// recording leaves nothing anywhere.
type sideStore struct {
	persistence.Store // the recording's own store: Load and List read it
	side              persistence.Store
	guard             *guard

	mu      sync.Mutex
	created []string // sessions created in the side store, in order
	refusal error    // the first secret found, or nil
}

func newSideStore(own, side persistence.Store, set *secret.Set) *sideStore {
	return &sideStore{Store: own, side: side, guard: newGuard(set)}
}

// Create creates the session in the side store, then in the recording's
// own, so the two hold the same sessions (the journal picks another id
// when one exists). The side store goes first, as the only store would: a
// store that watches what it refuses (the conformance kit's) sees every
// write. Its errors name it (a file, a database).
func (s *sideStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if err := s.check(h.ID, &h, seed); err != nil {
		return err
	}
	if err := s.side.Create(ctx, h, seed); err != nil {
		if errors.Is(err, persistence.ErrSessionExists) {
			// An earlier recording's session, most likely: every
			// recording of a scenario creates the same ids.
			return fmt.Errorf("%w: the side store holds session %s from an earlier run; give the recording an empty one (a new path) or delete the old", err, h.ID)
		}
		return err
	}
	if err := s.Store.Create(ctx, h, seed); err != nil {
		return err
	}
	s.mu.Lock()
	s.created = append(s.created, h.ID)
	s.mu.Unlock()
	return nil
}

// Append appends to the side store once the guard let the batch through,
// then to the recording's own store.
func (s *sideStore) Append(ctx context.Context, id string, events []session.Event) error {
	if err := s.check(id, nil, events); err != nil {
		return err
	}
	if err := s.side.Append(ctx, id, events); err != nil {
		return err
	}
	return s.Store.Append(ctx, id, events)
}

// check refuses the header and events of session id when they hold a
// secret, and every later call once one did.
func (s *sideStore) check(id string, h *session.Header, events []session.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refusal != nil {
		return s.refusal
	}
	if what := s.guard.check(id, h, events); what != "" {
		s.refusal = fmt.Errorf("%w: %s, on its way to the side store", ErrSecret, what)
		return s.refusal
	}
	return nil
}

// refused returns the secret the guard found, or nil (also for no side
// store).
func (s *sideStore) refused() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusal
}

// discard deletes the sessions the recording created in the side store and
// says what that left: the end of a refusal's message.
func (s *sideStore) discard(ctx context.Context) string {
	s.mu.Lock()
	ids := append([]string(nil), s.created...)
	s.mu.Unlock()
	if len(ids) == 0 {
		return "nothing was written: the fixture is unchanged and the side store holds nothing of this recording"
	}
	d, ok := s.side.(persistence.Deleter)
	err := errors.ErrUnsupported
	if ok {
		err = d.Delete(context.WithoutCancel(ctx), ids...)
	}
	if err != nil {
		return fmt.Sprintf("the fixture is unchanged, but the side store still holds %s of this recording (%s), whose events before the secret were stored; deleting them failed (%v): delete them by hand",
			english.Plural(len(ids), "session"), strings.Join(ids, ", "), err)
	}
	were := "were"
	if len(ids) == 1 {
		were = "was"
	}
	return fmt.Sprintf("nothing was kept: the fixture is unchanged, and the %s this recording had stored in the side store (none holding the secret) %s deleted",
		english.Count(len(ids), "session"), were)
}

// kept says what the side store keeps of a recording that failed for a
// reason other than a secret, or "" when it keeps nothing (or there is no
// side store).
func (s *sideStore) kept() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.created) == 0 {
		return ""
	}
	return fmt.Sprintf("; the side store keeps the %s recorded so far", english.Count(len(s.created), "session"))
}

func (s *sideStore) Close() error {
	return errors.Join(s.Store.Close(), s.side.Close())
}

// guard finds secrets in what is about to be stored: in the bytes of a
// header and of each event, and in the text each content block streams,
// its pieces joined across chunks and batches (a key the model cut into
// pieces is in no single event). It keeps per open block only the last
// MaxLen-1 bytes, which is all a later piece can complete.
type guard struct {
	set   *secret.Set
	tails map[callKey]map[int]string // open blocks' tails, per model call
}

type callKey struct {
	session             string
	turn, step, attempt int
}

func newGuard(set *secret.Set) *guard {
	return &guard{set: set, tails: map[callKey]map[int]string{}}
}

// check returns where a secret is in h and events of session id, as a
// phrase naming its source and never its value, or "".
func (g *guard) check(id string, h *session.Header, events []session.Event) string {
	if h != nil {
		if src, _, ok := g.set.Find(session.AppendHeader(nil, h)); ok {
			return fmt.Sprintf("the value of %s appears in the header of session %s", src, id)
		}
	}
	var buf []byte
	ends := make([]int, len(events))
	for i := range events {
		buf = session.AppendEvent(buf, &events[i])
		ends[i] = len(buf)
	}
	if src, at, ok := g.set.Find(buf); ok {
		e := &events[sort.SearchInts(ends, at+1)]
		return fmt.Sprintf("the value of %s appears in session %s event seq %d (%s)", src, id, e.Seq, e.Type)
	}
	for i := range events {
		if what := g.stream(id, &events[i]); what != "" {
			return what
		}
	}
	return ""
}

// stream adds the piece a chunk event streams to its block's tail and
// returns where a secret is when the tail completes one.
func (g *guard) stream(id string, e *session.Event) string {
	if e.Type != session.TypeAssistantChunk {
		return ""
	}
	d, err := session.DecodeChunkData(e.Data)
	if err != nil {
		return ""
	}
	k := callKey{id, d.Turn, d.Step, d.Attempt}
	switch d.Chunk.Type {
	case session.ChunkFinish:
		delete(g.tails, k)
		return ""
	case session.ChunkBlockEnd:
		delete(g.tails[k], d.Chunk.Index)
		return ""
	}
	piece := d.Chunk.Text + d.Chunk.ArgumentsDelta
	if piece == "" {
		return ""
	}
	if g.tails[k] == nil {
		g.tails[k] = map[int]string{}
	}
	w := g.tails[k][d.Chunk.Index] + piece
	if src, _, ok := g.set.FindString(w); ok {
		return fmt.Sprintf("the value of %s was streamed across chunks in session %s (turn %d step %d, up to event seq %d)", src, id, d.Turn, d.Step, e.Seq)
	}
	if keep := g.set.MaxLen() - 1; len(w) > keep {
		w = w[len(w)-max(keep, 0):]
	}
	g.tails[k][d.Chunk.Index] = w
	return ""
}
