package journal_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("BeginCall's digests of a conversation given in full that is a prefix of the session's", func() {
	// A runtime that asks again for the answer it just got (a regenerate)
	// sends the conversation without that answer: the header digests the
	// messages sent, not the session's longer conversation.
	It("digest the messages sent, not the session's conversation they begin", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		j.StartStep()
		sent := []session.Message{journal.UserText("hi")}
		for i := range 2 { // the call, then the same call asked again
			req := &llm.Request{System: "s", Tools: tools, Messages: sent}
			c, err := j.BeginCall(ctx, "prov", req)
			Expect(err).NotTo(HaveOccurred())
			events := logOf(j)
			var h session.RequestHeaderData
			Expect(events[len(events)-1].Decode(&h)).To(Succeed())
			Expect(h).To(Equal(llm.RequestHeader("prov", req)))
			Expect(h.MessageDigests).To(HaveLen(1))
			for _, ch := range answer("ok") {
				c.Chunk(ch)
			}
			c.End()
			Expect(j.Messages()).To(HaveLen(2+i), "the answer joined the session's conversation")
		}
	})
})
