package journal_test

import (
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// BeginCall hashes what a session's calls send once per session; the
// request/header it writes stays what llm.RequestHeader makes from scratch.
var _ = Describe("BeginCall's digests", func() {
	// begin makes a call of j with req, checks its request/header against
	// llm.RequestHeader and answers it.
	begin := func(j *journal.Journal, req *llm.Request) {
		GinkgoHelper()
		c, err := j.BeginCall(ctx, "prov", req)
		Expect(err).NotTo(HaveOccurred())
		events := logOf(j)
		var h session.RequestHeaderData
		Expect(events[len(events)-1].Decode(&h)).To(Succeed())
		Expect(h).To(Equal(llm.RequestHeader("prov", req)))
		for _, ch := range answer("ok") {
			c.Chunk(ch)
		}
		c.End()
	}

	It("digest a conversation given in full, call after call, as sent: grown, rewritten, changed in place", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		sent := []session.Message{journal.UserText("hi")}
		j.StartStep()
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: sent})
		sent = append(sent, llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("ok")}}, journal.UserText("more"))
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: sent})
		sent[0].Content[0].Text = "For context: hi" // the agent rewrote its history in its own slice
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: sent})
		begin(j, &llm.Request{System: "s2", Tools: nil, Messages: sent[:1]})
	})

	It("digest a conversation given in full that is the session's own, and one as long that is not", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		j.StartStep()
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: []session.Message{journal.UserText("hi")}})
		ok := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("ok")}}
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: []session.Message{journal.UserText("hi"), ok}})
		Expect(j.Messages()).To(HaveLen(3))
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: []session.Message{journal.UserText("hi"), ok, journal.UserText("ok")}})
		reasoned := llm.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartReasoning, Text: "r"}, session.TextPart("ok")}}
		begin(j, &llm.Request{System: "s", Tools: tools, Messages: []session.Message{journal.UserText("hi"), reasoned, ok, ok}})
	})

	It("digest a child's own system prompt and tools, after its parent digested others", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		root := newRoot(store)
		root.StartTurn(journal.TriggerUser, journal.UserText("delegate"))
		root.StartStep()
		begin(root, &llm.Request{System: "parent", Tools: tools})
		for _, tc := range []struct {
			call, system string
			tools        []llm.ToolSpec
		}{
			{"call_1", "parent", tools},
			{"call_2", "child", tools},
			{"call_3", "parent", []llm.ToolSpec{{Name: "other", Parameters: json.RawMessage(`{"type":"object"}`)}}},
			{"call_4", "parent", nil},
		} {
			child, err := root.Child(ctx, tc.call, session.ModeSpawn)
			Expect(err).NotTo(HaveOccurred())
			child.StartTurn(journal.TriggerSubagent, journal.UserText("task"))
			child.StartStep()
			begin(child, &llm.Request{System: tc.system, Tools: tc.tools})
		}
		begin(root, &llm.Request{System: "parent", Tools: tools})
	})

	It("digest a conversation given in full with its repeated messages, trusting them only as far as the last call's matched the session's", func() {
		// A wire-like session: each request repeats the last one's messages
		// and adds some. The agent sends its answers back without their
		// reasoning, so its requests and the session's conversation part
		// ways at the first reasoned answer, and the journal must not take
		// the repeated messages for the session's own past that point.
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		reasoned := func(text string) []llm.Chunk {
			m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartReasoning, Text: "thinking"}, session.TextPart(text)}}
			return llm.StreamMessage(m, nil, "")
		}
		plain := func(text string) session.Message {
			return session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}
		}
		var sent []session.Message // what the agent sends, call after call
		turn := func(user string, with []session.Message, repeated int, chunks []llm.Chunk) {
			GinkgoHelper()
			u := journal.UserText(user)
			j.StartTurn(journal.TriggerUser, u)
			j.StartStep()
			sent = append(append(sent, with...), u)
			req := &llm.Request{System: "s", Tools: tools, Messages: slices.Clone(sent)}
			c, err := j.BeginCallRepeating(ctx, "prov", req, repeated)
			Expect(err).NotTo(HaveOccurred())
			events := logOf(j)
			var h session.RequestHeaderData
			Expect(events[len(events)-1].Decode(&h)).To(Succeed())
			Expect(h).To(Equal(llm.RequestHeader("prov", req)), "the call of turn %q", user)
			for _, ch := range chunks {
				c.Chunk(ch)
			}
			c.End()
			Expect(j.EndTurn(ctx, completed)).To(Succeed())
		}
		turn("u1", nil, 0, reasoned("a1"))                          // the session's own: [u1]
		turn("u2", []session.Message{plain("a1")}, 1, answer("a2")) // a1 sent without its reasoning: parted at 1
		turn("u3", []session.Message{plain("a2")}, 3, answer("a3")) // repeats 3, of which only 1 is the session's
		// The agent now sends a1 back with its reasoning: the session's own
		// conversation again, digested with the session's digests.
		sent[1] = session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartReasoning, Text: "thinking"}, session.TextPart("a1")}}
		turn("u4", []session.Message{plain("a3")}, 1, reasoned("a4"))
		// A repeat count past what the digester last held.
		turn("u5", []session.Message{plain("a4")}, 7, answer("a5"))
		// The history replaced between turns with another first message:
		// the repeated messages are no longer the session's from the start.
		history := append([]session.Message{journal.UserText("u1, abridged")}, sent[1:]...)
		Expect(j.ReplaceHistory(0, append(history, plain("a5")))).To(Succeed())
		turn("u6", []session.Message{plain("a5")}, 9, answer("a6"))
		turn("u7", []session.Message{plain("a6")}, 11, answer("a7"))
	})
})
