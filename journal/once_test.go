package journal_test

import (
	"bytes"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// The journal encodes each chunk once and lets it go once stored; an
// in-memory store holds its own copy, densely: a replay's chunks are held
// once, and a finished session's journal holds none.
var _ = Describe("a recorded chunk", func() {
	It("is held once: by the store, the journal letting its copy and its blocks go when the turn ends", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		j.StartStep()
		call(j, answer("a long enough answer, so that the call has chunks of some size to hold"))
		mine := journal.Unstored(j) // the call's chunks, which the next flush stores
		blocks, arena := journal.HeldBlocks(j)
		Expect(blocks).To(BeNumerically(">", 0))
		Expect(arena).To(BeNumerically(">", 0))
		Expect(j.EndTurn(ctx, completed)).To(Succeed())

		Expect(journal.Unstored(j)).To(BeEmpty())
		blocks, arena = journal.HeldBlocks(j)
		Expect(blocks).To(BeZero(), "a journal between turns keeps a block of stored events, and through them their payloads")
		Expect(arena).To(BeZero(), "a journal between turns keeps its block of chunk payloads")
		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		chunks := 0
		for _, e := range mine {
			if e.Type != session.TypeAssistantChunk {
				continue
			}
			chunks++
			Expect(stored.Events[e.Seq]).To(Equal(e))
			Expect(&stored.Events[e.Seq].Data[0]).NotTo(BeIdenticalTo(&e.Data[0]), "seq %d: the store keeps the journal's block alive", e.Seq)
		}
		Expect(chunks).To(BeNumerically(">=", 4))
	})
})

// A long session's turns are alike: each turn's events fit the room the
// last turn needed, not the largest block a long session grew to.
var _ = Describe("the events of a long session", func() {
	DescribeTable("take about their own size in blocks, turn after turn",
		func(turns, perTurn, flushEvery int) {
			added, room := journal.EventRoom(turns, perTurn, flushEvery)
			Expect(added).To(Equal(turns * perTurn))
			Expect(room).To(BeNumerically("<=", 2*added), "%d events took room for %d", added, room)
		},
		Entry("32 turns of 38 events, stored every 5", 32, 38, 5),
		Entry("64 turns of 10 events, stored every 3", 64, 10, 3),
		Entry("8 turns of 600 events, stored every 50", 8, 600, 50))
})

var _ = Describe("an event of one's own", func() {
	It("keeps its raw payload as it was given, whatever the caller does with its buffer after", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		buf := json.RawMessage(`{"note":"a payload of one's own, long enough to be kept rather than copied"}`)
		want := bytes.Clone(buf)
		Expect(j.Emit("x/note", buf)).To(Succeed())
		Expect(j.Flush(ctx)).To(Succeed())
		for i := range buf {
			buf[i] = ' ' // the caller reuses its buffer
		}
		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		last := stored.Events[len(stored.Events)-1]
		Expect(last.Type).To(Equal("x/note"))
		Expect([]byte(last.Data)).To(Equal(want))
		mine := logOf(j)
		Expect([]byte(mine[len(mine)-1].Data)).To(Equal(want))
	})
})
