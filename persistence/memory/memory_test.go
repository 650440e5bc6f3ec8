package memory_test

import (
	"context"
	"errors"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// memStorage is one memory backend; reopening opens a new store on it.
type memStorage struct {
	b    *memory.Backend
	fail atomic.Bool // every write fails, after storing its batch
}

func (m *memStorage) Open() (persistence.Store, error) {
	return persistence.New(context.Background(), &failingMem{Backend: m.b, fail: &m.fail})
}

// FailWrites makes every write fail after it stored its batch, as a
// failed fsync would.
func (m *memStorage) FailWrites(fail bool) { m.fail.Store(fail) }

// Lose deletes the session from the backend behind the store's back.
func (m *memStorage) Lose(id string) error { return m.b.Delete(context.Background(), id) }

// failingMem is a memory backend whose writes fail while fail is set.
type failingMem struct {
	*memory.Backend
	fail *atomic.Bool
}

func (f *failingMem) Write(ctx context.Context, b *persistence.Batch) error {
	if err := f.Backend.Write(ctx, b); err != nil || !f.fail.Load() {
		return err
	}
	return errors.New("memory: write session " + b.Header.ID + ": the write failed after storing the batch")
}

func (m *memStorage) Crash(id string, events []session.Event) error {
	m.b.AppendRaw(id, storetest.TornBytes(events))
	return nil
}

// newMemStorage is the contract's newStorage: a new backend each time.
func newMemStorage() (storetest.Storage, error) { return &memStorage{b: memory.NewBackend()}, nil }

var _ = Describe("memory store", func() {
	// Every backend of the repository is a Deleter: a skipped check fails.
	for _, c := range storetest.Checks() {
		It(c.Name, func(ctx SpecContext) {
			if err := c.Run(ctx, newMemStorage); err != nil {
				Fail(err.Error())
			}
		})
	}

	It("keeps logs as JSONL bytes, so a torn tail is reported by Load", func() {
		b := memory.NewBackend()
		store := memory.Open(b)
		ctx := context.Background()
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		b.AppendRaw("root", []byte(`{"type":"turn/st`))
		l, err := memory.Open(b).Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(8))
		Expect(l.Torn).To(HaveField("Line", 10))
	})
})
