package storetest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

func describeLifecycle(s *suite) {
	Describe("lifecycle", func() {
		It("materialises a session at its first Append, not at Create", func() {
			parent := s.parentLog()
			h := ForkHeader("root", "call_1", 16)
			Expect(s.store.Create(s.ctx, h, parent.Events)).To(Succeed())
			Expect(Encoded(s.load(h.ID))).To(Equal(Encoded(&session.Log{Header: h, Events: parent.Events})), "a created session loads from memory")
			Expect(s.list()).To(ContainElement(h.ID))

			s.reopen()
			Expect(s.list()).To(Equal([]string{"root"}), "a session never appended to was never written")
			_, err := s.store.Load(s.ctx, h.ID)
			Expect(err).To(MatchError(persistence.ErrUnknownSession))
			Expect(s.store.Create(s.ctx, h, parent.Events)).To(Succeed(), "so it can be created again")
		})

		It("materialises a session on an empty Append", func() {
			parent := s.parentLog()
			h := ForkHeader("root", "call_1", 16)
			Expect(s.store.Create(s.ctx, h, parent.Events)).To(Succeed())
			Expect(s.store.Append(s.ctx, h.ID, nil)).To(Succeed())
			s.reopen()
			Expect(Encoded(s.load(h.ID))).To(Equal(Encoded(&session.Log{Header: h, Events: parent.Events})))
		})

		It("is safe to close twice, and every call after Close fails with ErrClosed", func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a"))
			Expect(s.store.Close()).To(Succeed())
			Expect(s.store.Close()).To(Succeed())
			Expect(s.store.Create(s.ctx, RootHeader("other"), nil)).To(MatchError(persistence.ErrClosed))
			Expect(s.store.Append(s.ctx, "root", CompletedTurn(8, 2, "p", "a"))).To(MatchError(persistence.ErrClosed))
			_, err := s.store.Load(s.ctx, "root")
			Expect(err).To(MatchError(persistence.ErrClosed))
			_, err = s.store.List(s.ctx)
			Expect(err).To(MatchError(persistence.ErrClosed))

			s.store = s.open(s.storage)
			Expect(s.load("root").Events).To(HaveLen(8), "what was appended before Close is there after a reopen")
		})

		It("stops a call whose context is done before it writes", func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a"))
			ctx, cancel := context.WithCancel(s.ctx)
			cancel()
			Expect(s.store.Append(ctx, "root", CompletedTurn(8, 2, "p", "a"))).To(MatchError(context.Canceled))
			Expect(s.store.Create(ctx, RootHeader("other"), nil)).To(MatchError(context.Canceled))
			s.reopen()
			Expect(s.load("root").Events).To(HaveLen(8))
			Expect(s.list()).To(Equal([]string{"root"}))
		})
	})
}

func describeListOrder(s *suite) {
	Describe("list order", func() {
		It("lists sessions by createdAt, ties in creation order, before and after a reopen", func() {
			late, tieA, tieB := RootHeader("late"), RootHeader("tie-a"), RootHeader("tie-b")
			late.CreatedAt = T0 + 50
			Expect(s.store.Create(s.ctx, late, nil)).To(Succeed())
			Expect(s.store.Create(s.ctx, tieA, nil)).To(Succeed())
			Expect(s.store.Create(s.ctx, tieB, nil)).To(Succeed())
			Expect(s.list()).To(Equal([]string{"tie-a", "tie-b", "late"}))

			early := RootHeader("early")
			early.CreatedAt = T0 - 50
			Expect(s.store.Create(s.ctx, early, nil)).To(Succeed())
			for _, id := range []string{"late", "early", "tie-a"} { // not the creation order
				Expect(s.store.Append(s.ctx, id, CompletedTurn(0, 1, "p", "a"))).To(Succeed())
			}
			s.reopen()
			Expect(s.list()).To(Equal([]string{"early", "tie-a", "late"}))
		})
	})
}
