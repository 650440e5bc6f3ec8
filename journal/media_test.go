package journal_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a tool result with an image", func() {
	It("is recorded and sent on as its parts, the image where the tool returned it", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		delegating(j, "look", "call_a")
		content := []session.Part{session.TextPart("the screen:"),
			{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:ab", MediaType: "image/png", Bytes: 3}}}
		j.ToolResultContent("call_a", "screenshot", content, false)
		want := session.Message{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult,
			ToolCallID: "call_a", Name: "screenshot", Content: content}}}
		msgs := j.Messages()
		Expect(msgs[len(msgs)-1]).To(Equal(want), "the conversation the next call sends")
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		var results []session.ToolResultData
		for _, e := range stored.Events {
			if e.Type == session.TypeToolResult {
				var d session.ToolResultData
				Expect(e.Decode(&d)).To(Succeed())
				results = append(results, d)
			}
		}
		Expect(results).To(HaveLen(1))
		Expect(results[0].Message).To(Equal(want))
	})
})

var _ = Describe("a tool result whose part carries meta", func() {
	It("is recorded and sent on with it", func() {
		store := memory.New()
		DeferCleanup(store.Close)
		j := newRoot(store)
		delegating(j, "look", "call_a")
		meta := json.RawMessage(`{"gemini":{"scheduling":"SILENT","willContinue":false}}`)
		j.ToolResultMeta("call_a", "watch", []session.Part{session.TextPart("done")}, false, meta)
		want := session.Message{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult,
			ToolCallID: "call_a", Name: "watch", Content: []session.Part{session.TextPart("done")}, Meta: meta}}}
		msgs := j.Messages()
		Expect(msgs[len(msgs)-1]).To(Equal(want), "the conversation the next call sends")
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		var results []string
		for _, e := range stored.Events {
			if e.Type == session.TypeToolResult {
				results = append(results, string(e.Data))
			}
		}
		Expect(results).To(ConsistOf(ContainSubstring(`"isError":false,"meta":{"gemini":{"scheduling":"SILENT","willContinue":false}}}`)))
	})
})
