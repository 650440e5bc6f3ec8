package journal_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// strictStore refuses an append on a context that is done, as a store
// that honours cancellation does.
type strictStore struct{ *memory.Store }

func (s strictStore) Append(ctx context.Context, id string, events []session.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.Store.Append(ctx, id, events)
}

var _ = Describe("a flush on a cancelled context", func() {
	It("still stores how the turn ended, whether the context can be cancelled or never can", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(strictStore{store})
		Expect(j.StartTurn(journal.TriggerUser, journal.UserText("hi"))).To(Equal(1))
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		Expect(j.EndTurn(cancelled, session.EndReason{Kind: session.TurnAborted, Message: "cancelled"})).To(Succeed())
		Expect(j.StartTurn(journal.TriggerUser, journal.UserText("again"))).To(Equal(2))
		Expect(j.EndTurn(context.Background(), completed)).To(Succeed())
		l, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		var ends []string
		for _, e := range l.Events {
			if e.Type == session.TypeTurnEnd {
				ends = append(ends, string(e.Data))
			}
		}
		Expect(ends).To(HaveLen(2))
		Expect(ends[0]).To(ContainSubstring(`"aborted"`))
	})
})
