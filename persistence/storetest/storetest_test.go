package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// brokenStorage opens stores with bugs on a memory backend, and keeps
// every store it opened, to see that the checks close them all.
type brokenStorage struct {
	memStorage
	bugs   []string
	opened *opened
}

type opened struct {
	mu     sync.Mutex
	stores []*brokenStore
}

func (s brokenStorage) Open() (persistence.Store, error) {
	inner, err := s.memStorage.Open()
	if err != nil {
		return nil, err
	}
	st := &brokenStore{Store: inner, bugs: s.bugs}
	s.opened.mu.Lock()
	s.opened.stores = append(s.opened.stores, st)
	s.opened.mu.Unlock()
	return st, nil
}

// The bugs a brokenStore can have.
const (
	dropsSeedLength  = "drops seedLength"
	panicsInLoad     = "panics in Load"
	panicsInAppend   = "panics in Append"
	listsNewestFirst = "lists newest first"
)

// brokenStore is a memory store with bugs.
type brokenStore struct {
	persistence.Store
	bugs   []string
	mu     sync.Mutex
	closed bool
}

func (s *brokenStore) has(bug string) bool { return slices.Contains(s.bugs, bug) }

func (s *brokenStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if s.has(dropsSeedLength) {
		h.SeedLength = 0
	}
	return s.Store.Create(ctx, h, seed)
}

// Append panics for a session only the concurrency check uses, on one of
// its goroutines.
func (s *brokenStore) Append(ctx context.Context, id string, events []session.Event) error {
	if s.has(panicsInAppend) && id == "root/call_3" {
		panic("append to " + id)
	}
	return s.Store.Append(ctx, id, events)
}

func (s *brokenStore) Load(ctx context.Context, id string) (*session.Log, error) {
	if s.has(panicsInLoad) && id == "odd" {
		panic("load of " + id)
	}
	return s.Store.Load(ctx, id)
}

func (s *brokenStore) List(ctx context.Context) ([]session.Header, error) {
	hs, err := s.Store.List(ctx)
	if s.has(listsNewestFirst) {
		slices.Reverse(hs)
	}
	return hs, err
}

func (s *brokenStore) Delete(ctx context.Context, ids ...string) error {
	return s.Store.(persistence.Deleter).Delete(ctx, ids...)
}

func (s *brokenStore) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return s.Store.Close()
}

var brokenChecks = map[string][]string{
	dropsSeedLength: {
		"round trip: keeps a fork child's lineage and seed boundary across a reopen",
		"resume: resumes a session with its stored seedLength and createdAt",
		"resume: stores a resumed log's seedLength as given, never the seed's length",
		"create validation: refuses a Create it could not honour, and keeps what it holds: a seedLength past the seed",
		"lifecycle: materialises a session at its first Append, not at Create",
		"lifecycle: materialises a session on an empty Append",
	},
	panicsInLoad:     {"round trip: keeps unknown event types, unknown members and header extras verbatim"},
	panicsInAppend:   {"concurrency: appends to many sessions at once, each in order, while others read"},
	listsNewestFirst: {"list order: lists sessions by createdAt, ties in creation order, before and after a reopen"},
}

// TestRunListsEveryBrokenCheck plants bugs in a memory store and checks
// that Run names every check they break, and no other, and closes every
// store it opened.
func TestRunListsEveryBrokenCheck(t *testing.T) {
	for _, bugs := range [][]string{
		{dropsSeedLength}, {panicsInLoad}, {panicsInAppend}, {listsNewestFirst},
		{dropsSeedLength, panicsInLoad, panicsInAppend, listsNewestFirst},
	} {
		t.Run(strings.Join(bugs, ", "), func(t *testing.T) {
			var want []string
			for _, bug := range bugs {
				want = append(want, brokenChecks[bug]...)
			}
			st := &opened{}
			err := storetest.Run(t.Context(), func() (storetest.Storage, error) {
				return brokenStorage{memStorage: memStorage{memory.NewBackend()}, bugs: bugs, opened: st}, nil
			})
			if err == nil {
				t.Fatalf("Run = nil, wanted an error naming %q", want)
			}
			if got := failedChecks(t, err); !sameSet(got, want) {
				t.Errorf("Run's error names the checks %q, wanted %q; the error:\n%s", got, want, err)
			}
			if head := fmt.Sprintf("failed %d of %d checks", len(want), len(storetest.Checks())); !strings.Contains(err.Error(), head) {
				t.Errorf("Run's error does not say %q:\n%s", head, err)
			}
			// A log that differs shows its diff, the wanted line "-", the
			// store's "+".
			if slices.Contains(bugs, dropsSeedLength) && !strings.Contains(err.Error(), `-{"type":"session","version":0,"id":"root/call_7"`) {
				t.Errorf("Run's error does not show the wanted header line of the fork child as a diff:\n%s", err)
			}
			for bug, says := range map[string]string{panicsInLoad: "panicked: load of odd", panicsInAppend: "panicked: append to root/call_3"} {
				if slices.Contains(bugs, bug) && !strings.Contains(err.Error(), says) {
					t.Errorf("Run's error does not show the panic %q:\n%s", says, err)
				}
			}
			for i, s := range st.stores {
				if !s.closed {
					t.Errorf("store %d of %d the checks opened is not closed", i+1, len(st.stores))
				}
			}
		})
	}
}

// failedChecks returns the names of the checks in Run's error, in order.
func failedChecks(t *testing.T, err error) []string {
	t.Helper()
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Run's error %T has no Unwrap() []error", err)
	}
	var names []string
	for _, e := range u.Unwrap() {
		for _, c := range storetest.Checks() {
			if strings.HasPrefix(e.Error(), "storetest: "+c.Name+": ") {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// plainStore hides the Delete of the store it wraps.
type plainStore struct{ persistence.Store }

type plainStorage struct{ memStorage }

func (s plainStorage) Open() (persistence.Store, error) {
	st, err := s.memStorage.Open()
	return plainStore{st}, err
}

// TestDeleteChecksSkipAStoreThatCannotDelete: the delete checks (and the
// one whose other writer deletes and stores a session anew) do not apply
// to a store that is no persistence.Deleter, nor the checks of failed
// writes and lost logs to a Storage that is no Faulty; it passes Run.
func TestDeleteChecksSkipAStoreThatCannotDelete(t *testing.T) {
	newStorage := func() (storetest.Storage, error) { return plainStorage{memStorage{memory.NewBackend()}}, nil }
	if err := storetest.Run(t.Context(), newStorage); err != nil {
		t.Fatalf("Run = %v, wanted nil", err)
	}
	skipped := 0
	for _, c := range storetest.Checks() {
		if err := c.Run(t.Context(), newStorage); errors.Is(err, storetest.ErrSkipped) {
			skipped++
			if !strings.HasPrefix(c.Name, "delete: ") && !strings.HasPrefix(c.Name, "failed write: ") && !strings.HasPrefix(c.Name, "lost log: ") && !strings.Contains(c.Name, "written anew by another store") {
				t.Errorf("check %q skipped: %v", c.Name, err)
			}
		}
	}
	if skipped != 4+1+3 {
		t.Errorf("%d checks skipped, wanted the 4 delete checks, the other writer's that deletes, and the 3 of failed writes and lost logs", skipped)
	}
}

// TestCheckNames: every check has a name of its own.
func TestCheckNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range storetest.Checks() {
		if c.Name == "" || seen[c.Name] || c.Run == nil {
			t.Errorf("check %q: empty, repeated or without Run", c.Name)
		}
		seen[c.Name] = true
	}
}

// faultyPlain is a Faulty storage over one memory backend whose stores
// cannot delete.
type faultyPlain struct {
	b    *memory.Backend
	fail *atomic.Bool
}

func (s faultyPlain) Open() (persistence.Store, error) {
	c, err := persistence.New(context.Background(), failingBackend{Backend: s.b, fail: s.fail})
	return plainStore{c}, err
}

func (s faultyPlain) Crash(string, []session.Event) error { return errors.New("cannot crash") }
func (s faultyPlain) FailWrites(fail bool)                { s.fail.Store(fail) }
func (s faultyPlain) Lose(id string) error                { return s.b.Delete(context.Background(), id) }

// failingBackend fails every write, before storing anything, while fail
// is set.
type failingBackend struct {
	*memory.Backend
	fail *atomic.Bool
}

func (f failingBackend) Write(ctx context.Context, b *persistence.Batch) error {
	if f.fail.Load() {
		return errors.New("disk full")
	}
	return f.Backend.Write(ctx, b)
}

// TestFaultChecksHoldAStoreThatCannotDelete: the checks of failed writes
// and lost logs run on a Faulty storage whose store is no Deleter, and a
// store that keeps the contract passes them.
func TestFaultChecksHoldAStoreThatCannotDelete(t *testing.T) {
	ran := 0
	for _, c := range storetest.Checks() {
		if !strings.HasPrefix(c.Name, "failed write: ") && !strings.HasPrefix(c.Name, "lost log: ") {
			continue
		}
		ran++
		err := c.Run(t.Context(), func() (storetest.Storage, error) {
			return faultyPlain{b: memory.NewBackend(), fail: new(atomic.Bool)}, nil
		})
		if err != nil {
			t.Errorf("%v, wanted nil", err)
		}
	}
	if ran != 3 {
		t.Errorf("%d checks of failed writes and lost logs, wanted 3", ran)
	}
}
