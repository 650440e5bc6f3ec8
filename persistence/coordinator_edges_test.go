package persistence_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Coordinator guarantees", func() {
	It("refuses to load a log another store appended to behind its back, and from then on to append to it or load it", func(ctx SpecContext) {
		b := memory.NewBackend()
		first, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		turn := storetest.CompletedTurn(0, 1, "p", "a")
		Expect(first.Append(ctx, "root", turn)).To(Succeed())

		second, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(second.Append(ctx, "root", storetest.CompletedTurn(int64(len(turn)), 2, "p", "a"))).To(Succeed())

		_, err = first.Load(ctx, "root")
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("session root"))
		Expect(err.Error()).To(ContainSubstring("another process wrote to it"))

		err = first.Append(ctx, "root", storetest.CompletedTurn(int64(len(turn)), 2, "mine", "a"))
		Expect(err).To(MatchError(ContainSubstring("memory: append to session root: the stored log holds 16 events")))
		Expect(err.Error()).To(ContainSubstring("another process wrote to it"))
		_, err = first.Load(ctx, "root")
		Expect(err).To(MatchError(ContainSubstring("memory: load session root: the stored log holds 16 events")))
		l, err := second.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(16), "the refused Append wrote nothing")
	})

	It("deletes from the backend a new session whose first write failed after storing it", func(ctx SpecContext) {
		b := &flaky{Backend: memory.NewBackend()}
		store, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		b.failAfter = true
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(MatchError(errDisk))

		Expect(store.Delete(ctx, "root")).To(Succeed())
		hs, err := b.Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(BeEmpty(), "what the failed write stored is gone too")
	})
})

// twice is a memory backend that lists every session twice, as a broken
// backend might.
type twice struct{ *memory.Backend }

func (t twice) Sessions(ctx context.Context) ([]session.Header, error) {
	hs, err := t.Backend.Sessions(ctx)
	return append(hs, hs...), err
}

var _ = Describe("Coordinator's own copies", func() {
	It("hands Load of a pending session a copy of its seed, so changing it changes nothing stored", func(ctx SpecContext) {
		store, err := persistence.New(ctx, memory.NewBackend())
		Expect(err).NotTo(HaveOccurred())
		seed := storetest.CompletedTurn(0, 1, "p", "a")
		h := storetest.RootHeader("child")
		h.SeedLength = len(seed)
		Expect(store.Create(ctx, h, seed)).To(Succeed())
		want := storetest.Encoded(&session.Log{Header: h, Events: seed})

		l, err := store.Load(ctx, "child")
		Expect(err).NotTo(HaveOccurred())
		l.Events[0].Time = 999
		Expect(store.Append(ctx, "child", nil)).To(Succeed())
		stored, err := store.Load(ctx, "child")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(stored)).To(Equal(want))
	})

	It("refuses a backend that lists one session twice, naming it", func(ctx SpecContext) {
		b := memory.NewBackend()
		first, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(first.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		_, err = persistence.New(ctx, twice{b})
		Expect(err).To(MatchError(ContainSubstring("memory: session root is stored twice")))
	})
})
