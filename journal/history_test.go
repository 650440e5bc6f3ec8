package journal_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Journal.ReplaceHistory between turns", func() {
	var j *journal.Journal
	BeforeEach(func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j = newRoot(store)
		turn(j, "one") // user message and answer: 2 messages
	})

	It("belongs to the next turn, written right after its turn/start", func() {
		Expect(j.ReplaceHistory(1, []session.Message{journal.UserText("summary")})).To(Succeed())
		j.StartTurn(journal.TriggerUser, journal.UserText("two"))
		Expect(j.Flush(ctx)).To(Succeed())
		events := logOf(j)
		i := len(events) - 3
		Expect(events[i].Type).To(Equal(session.TypeTurnStart))
		Expect(events[i+1].Type).To(Equal(session.TypeHistoryReplace))
		var d session.HistoryReplaceData
		Expect(events[i+1].Decode(&d)).To(Succeed())
		Expect(d.Turn).To(Equal(2))
		Expect(d.Keep).To(Equal(1))

		// Written once: the turns after it carry none.
		j.StartStep()
		call(j, answer("done: two"))
		Expect(j.EndStep(ctx)).To(Succeed())
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		turn(j, "three")
		Expect(count(logOf(j), session.TypeHistoryReplace)).To(Equal(1))
	})

	It("refuses to keep more messages than the conversation holds", func() {
		n := len(j.Messages())
		err := j.ReplaceHistory(n+1, nil)
		Expect(err).To(MatchError(ContainSubstring("ReplaceHistory keeps %d messages of %d", n+1, n)))
		Expect(j.ReplaceHistory(n, nil)).To(Succeed(), "keeping all of them is fine")
	})

	It("refuses a second replacement before the next turn starts", func() {
		Expect(j.ReplaceHistory(1, nil)).To(Succeed())
		err := j.ReplaceHistory(1, nil)
		Expect(err).To(MatchError(ContainSubstring("journal: session root: ReplaceHistory twice before turn 2 starts")))
	})
})
