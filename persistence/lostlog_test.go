package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// naive is a memory backend that takes a write to a session it does not
// hold as that session's first, the way a backend that opens a file for
// appending, creating it, would. The Coordinator must not lean on its
// backend to refuse such a write: a stored session whose log is gone is
// never stored anew, which would start a log at the next seq and lose the
// events before.
type naive struct {
	*memory.Backend
	fail *atomic.Bool
}

func (n *naive) Write(ctx context.Context, b *persistence.Batch) error {
	if n.fail.Load() {
		return errDisk
	}
	if _, err := n.Backend.Read(ctx, b.Header.ID); !b.New && errors.Is(err, persistence.ErrUnknownSession) {
		fresh := *b
		fresh.New = true
		return n.Backend.Write(ctx, &fresh)
	}
	return n.Backend.Write(ctx, b)
}

// naiveStorage is a storetest.Faulty over one naive backend.
type naiveStorage struct {
	b    *memory.Backend
	fail atomic.Bool
}

func (s *naiveStorage) Open() (persistence.Store, error) {
	return persistence.New(context.Background(), &naive{Backend: s.b, fail: &s.fail})
}

// Crash is not needed: only the checks of failed writes run on it.
func (s *naiveStorage) Crash(string, []session.Event) error {
	return errors.New("naiveStorage cannot crash")
}

func (s *naiveStorage) FailWrites(fail bool) { s.fail.Store(fail) }

func (s *naiveStorage) Lose(id string) error { return s.b.Delete(context.Background(), id) }

var _ = Describe("Coordinator over a backend that writes whatever it is handed", func() {
	newStorage := func() (storetest.Storage, error) { return &naiveStorage{b: memory.NewBackend()}, nil }
	for _, c := range storetest.Checks() {
		// A log lost between two Appends only the backend can see: the
		// "lost log" checks hold backends to that.
		if !strings.HasPrefix(c.Name, "failed write:") {
			continue
		}
		It(c.Name, func(ctx SpecContext) {
			if err := c.Run(ctx, newStorage); err != nil {
				Fail(err.Error())
			}
		})
	}
})

// provisioned is a memory backend that stores only the sessions set up for
// it beforehand, as a remote store may: a new session's first write is
// refused as unknown.
type provisioned struct{ *memory.Backend }

func (p provisioned) Write(ctx context.Context, b *persistence.Batch) error {
	if b.New {
		return fmt.Errorf("provisioned: session %s was never set up: %w", b.Header.ID, persistence.ErrUnknownSession)
	}
	return p.Backend.Write(ctx, b)
}

var _ = Describe("Coordinator whose backend refuses a new session's first write as unknown", func() {
	It("passes the backend's refusal on, never saying a log was lost that was never stored", func(ctx SpecContext) {
		store, err := persistence.New(ctx, provisioned{memory.NewBackend()})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		err = store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))
		Expect(err).To(MatchError(persistence.ErrUnknownSession))
		Expect(err.Error()).To(ContainSubstring("was never set up"))
		Expect(err.Error()).NotTo(ContainSubstring("gone"))
	})
})

// errArchived is the sentinel of vault, a backend of a user's own.
var errArchived = errors.New("archived")

// vault is a memory backend that says in its own words why a session it
// stored is gone: a retention policy archived it.
type vault struct {
	*memory.Backend
	archived *atomic.Bool
}

func (v vault) lost(id string) error {
	return fmt.Errorf("vault: session %s was %w by the retention policy; ask the admin for it back: %w", id, errArchived, persistence.ErrUnknownSession)
}

func (v vault) Read(ctx context.Context, id string) (*session.Log, error) {
	if v.archived.Load() {
		return nil, v.lost(id)
	}
	return v.Backend.Read(ctx, id)
}

func (v vault) Write(ctx context.Context, b *persistence.Batch) error {
	if v.archived.Load() && !b.New {
		return v.lost(b.Header.ID)
	}
	return v.Backend.Write(ctx, b)
}

var _ = Describe("Coordinator over a backend that says why a log is gone", func() {
	var (
		store    *persistence.Coordinator
		archived *atomic.Bool
	)
	BeforeEach(func(ctx SpecContext) {
		archived = new(atomic.Bool)
		var err error
		store, err = persistence.New(ctx, vault{memory.NewBackend(), archived})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(store.Create(ctx, storetest.RootHeader("other"), nil)).To(Succeed())
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		archived.Store(true)
	})

	It("keeps the backend's words and sentinel beside its own advice", func(ctx SpecContext) {
		err := store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))
		Expect(err).To(MatchError(persistence.ErrUnknownSession))
		Expect(err).To(MatchError(errArchived))
		Expect(err.Error()).To(ContainSubstring("its stored log is gone"))
		Expect(err.Error()).To(ContainSubstring("archived by the retention policy; ask the admin for it back"))
		_, err = store.Load(ctx, "root")
		Expect(err).To(MatchError(errArchived))
		Expect(err.Error()).To(ContainSubstring("its stored log is gone"))
	})

	It("leaves a session whose log an Append found gone out of List, until a call finds it back", func(ctx SpecContext) {
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))).To(MatchError(errArchived))
		Expect(ids(store.List(ctx))).To(Equal([]string{"other"}))

		archived.Store(false)
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))).To(Succeed())
		Expect(ids(store.List(ctx))).To(Equal([]string{"root", "other"}))
	})

	It("leaves a session whose log a Load found gone out of List; Delete still removes it", func(ctx SpecContext) {
		_, err := store.Load(ctx, "root")
		Expect(err).To(MatchError(errArchived))
		Expect(ids(store.List(ctx))).To(Equal([]string{"other"}))
		archived.Store(false)
		Expect(store.Delete(ctx, "root")).To(Succeed())
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(ids(store.List(ctx))).To(ConsistOf("root", "other"))
	})
})

// ids returns the ids of hs, failing the spec on err.
func ids(hs []session.Header, err error) []string {
	Expect(err).NotTo(HaveOccurred())
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}
