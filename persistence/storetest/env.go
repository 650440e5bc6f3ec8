package storetest

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// env is the state of one check: its storage, the store open on it, and
// every store the check opened, which check.run closes.
type env struct {
	ctx        context.Context
	newStorage func() (Storage, error)
	storage    Storage
	store      persistence.Store
	opened     []persistence.Store
}

// start makes the check's storage and opens a store on it.
func (e *env) start() error {
	st, err := e.fresh()
	if err != nil {
		return err
	}
	e.storage = st
	e.store, err = e.open(st)
	return err
}

// fresh returns new storage from newStorage.
func (e *env) fresh() (Storage, error) {
	st, err := e.newStorage()
	if err != nil {
		return nil, fmt.Errorf("newStorage() = %w, wanted fresh storage", err)
	}
	if st == nil {
		return nil, fmt.Errorf("newStorage() = nil, wanted fresh storage")
	}
	return st, nil
}

// open opens a store on st; check.run closes it when the check ends.
func (e *env) open(st Storage) (persistence.Store, error) {
	store, err := st.Open()
	if err != nil {
		return nil, fmt.Errorf("Open() = %w, wanted a store", err)
	}
	if store == nil {
		return nil, fmt.Errorf("Open() = nil, wanted a store")
	}
	e.opened = append(e.opened, store)
	return store, nil
}

// reopen closes the check's store and opens its storage again.
func (e *env) reopen() error {
	if err := e.store.Close(); err != nil {
		return fmt.Errorf("Close() before opening the storage again = %w, wanted nil", err)
	}
	var err error
	e.store, err = e.open(e.storage)
	return err
}

// create registers a session and appends each batch after its seed.
func (e *env) create(h session.Header, seed []session.Event, batches ...[]session.Event) error {
	if err := e.store.Create(e.ctx, h, seed); err != nil {
		return fmt.Errorf("Create(%s, seed %s) = %w, wanted nil", headerDesc(h), span(seed), err)
	}
	for _, batch := range batches {
		if err := e.store.Append(e.ctx, h.ID, batch); err != nil {
			return fmt.Errorf("Append(%q, %s) = %w, wanted nil", h.ID, span(batch), err)
		}
	}
	return nil
}

// load loads session id from the check's store.
func (e *env) load(id string) (*session.Log, error) {
	l, err := e.store.Load(e.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("Load(%q) = %w, wanted the session's log", id, err)
	}
	if l == nil {
		return nil, fmt.Errorf("Load(%q) = nil, nil, wanted the session's log", id)
	}
	return l, nil
}

// headers returns what List reports.
func (e *env) headers() ([]session.Header, error) {
	hs, err := e.store.List(e.ctx)
	if err != nil {
		return nil, fmt.Errorf("List() = %w, wanted the stored sessions", err)
	}
	return hs, nil
}

// list returns the ids List reports, in order.
func (e *env) list() ([]string, error) {
	hs, err := e.headers()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids, nil
}

// header returns the header List reports for id.
func (e *env) header(id string) (session.Header, error) {
	hs, err := e.headers()
	if err != nil {
		return session.Header{}, err
	}
	for _, h := range hs {
		if h.ID == id {
			return h, nil
		}
	}
	return session.Header{}, fmt.Errorf("List() does not report session %q, wanted its header", id)
}

// wantList checks that List reports exactly the ids want, in order.
func (e *env) wantList(when string, want ...string) error {
	got, err := e.list()
	if err != nil {
		return fmt.Errorf("%s: %w", when, err)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s: List() = %q, wanted %q", when, got, want)
	}
	return nil
}

// wantEvents checks that session id loads with n events.
func (e *env) wantEvents(when, id string, n int) error {
	l, err := e.load(id)
	if err != nil {
		return fmt.Errorf("%s: %w", when, err)
	}
	if len(l.Events) != n {
		return fmt.Errorf("%s: Load(%q) = %d events, wanted %d", when, id, len(l.Events), n)
	}
	return nil
}

// wantLog checks that session id loads as want, member for member.
func (e *env) wantLog(when, id string, want *session.Log) (*session.Log, error) {
	l, err := e.load(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", when, err)
	}
	return l, sameLog(fmt.Sprintf("%s: Load(%q)", when, id), l, want)
}

// parentLog stores a root session "root" with two completed turns and
// returns its log.
func (e *env) parentLog() (*session.Log, error) {
	h := RootHeader("root")
	events := append(CompletedTurn(0, 1, "say OK", "OK"), CompletedTurn(8, 2, "again", "OK again")...)
	if err := e.create(h, nil, events); err != nil {
		return nil, err
	}
	return &session.Log{Header: h, Events: events}, nil
}
