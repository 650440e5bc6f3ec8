package persistence_test

import (
	"context"
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// failingLoads is a store whose Load fails for the ids in fail.
type failingLoads struct {
	persistence.Store
	fail map[string]bool
}

func (s failingLoads) Load(ctx context.Context, id string) (*session.Log, error) {
	if s.fail[id] {
		return nil, fmt.Errorf("loading %s: %w", id, errDisk)
	}
	return s.Store.Load(ctx, id)
}

var _ = Describe("LoadAll", func() {
	ctx := context.Background()
	// filled is a memory store of n sessions, s0 ... s(n-1), each with one
	// event naming it.
	filled := func(n int) persistence.Store {
		store := memory.New()
		DeferCleanup(store.Close)
		for i := range n {
			id := fmt.Sprintf("s%d", i)
			Expect(store.Create(ctx, storetest.RootHeader(id), nil)).To(Succeed())
			Expect(store.Append(ctx, id, []session.Event{{Type: "x/id", Seq: 0, Time: 1, Data: []byte(fmt.Sprintf("%q", id))}})).To(Succeed())
		}
		return store
	}

	for _, n := range []int{3, 500} {
		It(fmt.Sprintf("loads every one of %d sessions, in List order", n), func() {
			logs, err := persistence.LoadAll(ctx, filled(n))
			Expect(err).NotTo(HaveOccurred())
			Expect(logs).To(HaveLen(n))
			for i, l := range logs {
				id := fmt.Sprintf("s%d", i)
				Expect(l.Header.ID).To(Equal(id))
				Expect(string(l.Events[0].Data)).To(Equal(fmt.Sprintf("%q", id)))
			}
		})

		It(fmt.Sprintf("returns the first failure in List order of %d sessions, however the loads interleave", n), func() {
			store := failingLoads{filled(n), map[string]bool{"s1": true, fmt.Sprintf("s%d", n-1): true}}
			_, err := persistence.LoadAll(ctx, store)
			Expect(errors.Is(err, errDisk)).To(BeTrue())
			Expect(err).To(MatchError(ContainSubstring("loading s1:")))
		})
	}
})
