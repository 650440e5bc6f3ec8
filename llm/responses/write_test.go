package responses_test

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
)

// streamed writes chunks with WriteStream and returns the data of each
// event, decoded, and the Result.
func streamed(chunks []session.Chunk) ([]map[string]any, responses.Result) {
	GinkgoHelper()
	w := httptest.NewRecorder()
	res, err := responses.WriteStream(w, responses.Answer{Key: "root:1:1:1", Model: "gpt-test"}, slices.Values(chunks))
	Expect(err).NotTo(HaveOccurred())
	var events []map[string]any
	for _, frame := range strings.Split(strings.TrimSpace(w.Body.String()), "\n\n") {
		for _, line := range strings.Split(frame, "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev map[string]any
				Expect(json.Unmarshal([]byte(data), &ev)).To(Succeed(), data)
				events = append(events, ev)
			}
		}
	}
	return events, res
}

// completedOutput is the output of the stream's response.completed event.
func completedOutput(events []map[string]any) []any {
	GinkgoHelper()
	for _, ev := range events {
		if ev["type"] == "response.completed" {
			return ev["response"].(map[string]any)["output"].([]any)
		}
	}
	Fail("no response.completed event")
	return nil
}

var _ = Describe("WriteStream's events, as an SDK reads them", func() {
	It("name a function call by the first name its deltas give, when no block-end says it again", func() {
		events, res := streamed([]session.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall},
			{Type: session.ChunkToolCallDelta, Index: 0, ID: "call_1", Name: "lookup", ArgumentsDelta: `{"key":`},
			{Type: session.ChunkToolCallDelta, Index: 0, ArgumentsDelta: `"a"}`},
			{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishToolCalls}},
		})
		out := completedOutput(events)
		Expect(out).To(HaveLen(1))
		Expect(out[0]).To(HaveKeyWithValue("name", "lookup"))
		Expect(out[0]).To(HaveKeyWithValue("call_id", "call_1"))
		Expect(out[0]).To(HaveKeyWithValue("arguments", `{"key":"a"}`))
		Expect(res.Output.Content).To(Equal([]session.Part{{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"a"}`}}))
	})

	It("give a reasoning item the id its recording holds: its encrypted content is that item's", func() {
		meta := responses.Meta{ID: "rs_recorded", EncryptedContent: "RU5D"}.Raw()
		events, res := streamed([]session.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockReasoning},
			{Type: session.ChunkReasoningDelta, Index: 0, Text: "Think."},
			{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockReasoning, Text: "Think.", Meta: meta}},
			{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockText},
			{Type: session.ChunkTextDelta, Index: 1, Text: "Done."},
			{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockText, Text: "Done."}},
			{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishStop}},
		})
		out := completedOutput(events)
		Expect(out).To(HaveLen(2))
		Expect(out[0]).To(HaveKeyWithValue("id", "rs_recorded"))
		Expect(out[0]).To(HaveKeyWithValue("encrypted_content", "RU5D"))
		Expect(res.ItemIDs[0]).To(Equal("rs_recorded"))
	})

	It("say nothing more of a block once it ended: a delta after its end is not sent", func() {
		events, res := streamed([]session.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockText},
			{Type: session.ChunkTextDelta, Index: 0, Text: "Hi."},
			{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockText, Text: "Hi."}},
			{Type: session.ChunkTextDelta, Index: 0, Text: " Late."},
			{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishStop}},
		})
		var deltas []any
		for _, ev := range events {
			if ev["type"] == "response.output_text.delta" {
				deltas = append(deltas, ev["delta"])
			}
		}
		Expect(deltas).To(Equal([]any{"Hi."}))
		out := completedOutput(events)
		Expect(out).To(HaveLen(1))
		Expect(out[0].(map[string]any)["content"]).To(Equal([]any{map[string]any{"type": "output_text", "text": "Hi.", "annotations": []any{}}}))
		Expect(res.Output.Content).To(Equal([]session.Part{session.TextPart("Hi.")}))
	})
})
