package persistence_test

import (
	"context"
	"errors"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var errDisk = errors.New("disk full")

// flaky is a memory backend whose next write fails: before storing
// anything, or after storing the batch (as a failed fsync would).
type flaky struct {
	*memory.Backend
	failBefore, failAfter bool
	last                  *persistence.Batch // what the last Write was handed
}

func (f *flaky) Write(ctx context.Context, b *persistence.Batch) error {
	f.last = b
	switch {
	case f.failBefore:
		f.failBefore = false
		return errDisk
	case f.failAfter:
		f.failAfter = false
		if err := f.Backend.Write(ctx, b); err != nil {
			return err
		}
		return errDisk
	}
	return f.Backend.Write(ctx, b)
}

var _ = Describe("Coordinator after a failed write", func() {
	ctx := context.Background()
	var b *flaky
	var store *persistence.Coordinator

	BeforeEach(func() {
		b = &flaky{Backend: memory.NewBackend()}
		var err error
		store, err = persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
	})

	It("holds no events in the batch it handed Write once Write returned, written or failed", func() {
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(b.last).NotTo(BeNil())
		Expect(*b.last).To(Equal(persistence.Batch{}), "a reused batch is zeroed: the events are the caller's")
		b.last = nil
		b.failBefore = true
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))).To(MatchError(errDisk))
		Expect(*b.last).To(Equal(persistence.Batch{}))
	})

	It("keeps a new session pending when its first write stored nothing", func() {
		b.failBefore = true
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(MatchError(errDisk))
		hs, err := b.Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(BeEmpty())
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed(), "the retry materialises it")
		l, err := b.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(8))
	})

	It("reads the state back when a write failed after storing, and never closes the live turn", func() {
		started, finished := storetest.ToolTurn(0, 1)
		Expect(store.Append(ctx, "root", started)).To(Succeed())
		b.failAfter = true
		Expect(store.Append(ctx, "root", finished[:2])).To(MatchError(errDisk))

		err := store.Append(ctx, "root", finished[:2])
		Expect(err).To(MatchError(persistence.ErrOutOfOrder), "the batch is stored already")
		Expect(err.Error()).To(ContainSubstring("next seq is 8"))
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(l)).To(Equal(storetest.Encoded(&session.Log{Header: l.Header, Events: slices.Concat(started, finished[:2])})),
			"the turn is in progress in this store, not interrupted")
		Expect(store.Append(ctx, "root", finished[2:])).To(Succeed())
	})
})
