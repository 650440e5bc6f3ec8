package journal_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("journal guarantees at the store's edges", func() {
	var store *memory.Store
	BeforeEach(func() {
		store = memory.New()
		DeferCleanup(store.Close)
	})

	It("skips a child id a resumed parent's earlier child took, instead of refusing the child", func() {
		parent := newRoot(store)
		turn(parent, "one", "call_0")
		first, err := parent.Child(ctx, "call_0", session.ModeSpawn)
		Expect(err).NotTo(HaveOccurred())

		r, err := journal.Resume(ctx, config(store), parent.ID())
		Expect(err).NotTo(HaveOccurred())
		delegating(r, "two", "call_0")
		second, err := r.Child(ctx, "call_0", session.ModeSpawn)
		Expect(err).NotTo(HaveOccurred())
		Expect(second.ID()).NotTo(Equal(first.ID()))
		Expect(second.Header().ParentCallID).To(Equal("call_0"))
	})

	It("names the session when storing its events fails", func() {
		s := &failsOnce{Store: store}
		j := newRoot(s)
		j.StartTurn(journal.TriggerUser, journal.UserText("one"))
		s.armed.Store(true)
		err := j.Flush(ctx)
		Expect(err).To(MatchError(errFull))
		Expect(err.Error()).To(ContainSubstring("session " + j.ID()))
	})

	It("forks a resumed session at its last turn/end, not after events that follow it", func() {
		events := storetest.CompletedTurn(0, 1, "p", "a")
		ended := len(events)
		Expect(events[ended-1].Type).To(Equal(session.TypeTurnEnd))
		events = append(events, session.Event{Type: "x/note", Seq: int64(ended), Time: 1, Data: json.RawMessage(`{}`)})
		Expect(store.Create(ctx, storetest.RootHeader("r"), nil)).To(Succeed())
		Expect(store.Append(ctx, "r", events)).To(Succeed())

		r, err := journal.Resume(ctx, config(store), "r")
		Expect(err).NotTo(HaveOccurred())
		child, err := r.Child(ctx, "call_f", session.ModeFork)
		Expect(err).NotTo(HaveOccurred())
		Expect(child.Header().SeedLength).To(Equal(ended))
	})
})
