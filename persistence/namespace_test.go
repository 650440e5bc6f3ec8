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

var _ = Describe("Namespace", func() {
	ctx := context.Background()

	It("keeps two trees that name their sessions alike apart in one store", func() {
		shared := memory.New()
		DeferCleanup(shared.Close)
		a, b := persistence.Namespace(shared, "a:"), persistence.Namespace(shared, "b:")
		turn := storetest.CompletedTurn(0, 1, "p", "x")
		child := storetest.ForkHeader("root", "call_1", len(turn))
		for _, s := range []persistence.Store{a, b} {
			Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
			Expect(s.Append(ctx, "root", turn)).To(Succeed())
			Expect(s.Create(ctx, child, turn)).To(Succeed())
			Expect(s.Append(ctx, child.ID, nil)).To(Succeed())
		}

		all, err := shared.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		var ids, parents []string
		for _, h := range all {
			ids, parents = append(ids, h.ID), append(parents, h.ParentSession)
		}
		Expect(ids).To(ConsistOf("a:root", "a:root/call_1", "b:root", "b:root/call_1"))
		Expect(parents).To(ConsistOf("", "a:root", "", "b:root"))

		headers, err := a.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(headers).To(ConsistOf(storetest.RootHeader("root"), child))
		l, err := b.Load(ctx, child.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header).To(Equal(child))
		Expect(l.Events).To(Equal(turn))
	})

	It("leaves the store open when the view closes", func() {
		shared := memory.New()
		DeferCleanup(shared.Close)
		Expect(persistence.Namespace(shared, "a:").Close()).To(Succeed())
		Expect(shared.Create(ctx, session.Header{ID: "root"}, nil)).To(Succeed())
	})
})
