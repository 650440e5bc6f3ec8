package journal_test

import (
	"encoding/json"

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
})
