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

// The journal encodes each chunk once, and an in-memory store keeps those
// bytes rather than a copy of them: a replay's chunks are held once.
var _ = Describe("a recorded chunk", func() {
	It("is held once, by the journal and the memory store alike", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		j.StartStep()
		call(j, answer("a long enough answer, so that each chunk's payload is worth keeping rather than copying"))
		mine := journal.Unstored(j) // the call's chunks, which the next flush stores
		Expect(j.EndTurn(ctx, completed)).To(Succeed())

		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		chunks := 0
		for _, e := range mine {
			if e.Type != session.TypeAssistantChunk {
				continue
			}
			chunks++
			Expect(stored.Events[e.Seq]).To(Equal(e))
			Expect(&stored.Events[e.Seq].Data[0]).To(BeIdenticalTo(&e.Data[0]), "seq %d: the store copied the chunk", e.Seq)
		}
		Expect(chunks).To(BeNumerically(">=", 4))
	})
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
