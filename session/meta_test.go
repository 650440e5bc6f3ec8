package session_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("what a model API hands out with a block and wants back (meta)", func() {
	meta := json.RawMessage(`{"anthropic-messages":{"signature":"c2ln"}}`)

	It("is written last, compact, on a part, and read back", func() {
		p := session.Part{Type: session.PartReasoning, Text: "because", Meta: json.RawMessage(`{ "anthropic-messages" : {"signature":"c2ln"} }`)}
		m := session.Message{Role: session.RoleAssistant, Content: []session.Part{p}}
		b, err := session.MarshalData(m)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"role":"assistant","content":[{"type":"reasoning","text":"because","meta":{"anthropic-messages":{"signature":"c2ln"}}}]}`))
		var back session.Message
		Expect(json.Unmarshal(b, &back)).To(Succeed())
		Expect(back.Content[0].Meta).To(MatchJSON(meta))
		Expect(back.Content[0].Text).To(Equal("because"))
	})

	It("is left out when not set, and a part without it reads as before", func() {
		b, err := session.MarshalData(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hi")}})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).NotTo(ContainSubstring("meta"))
		var back session.Message
		Expect(json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"text","text":"hi","meta":null}]}`), &back)).To(Succeed())
		Expect(back.Content[0].Meta).To(BeNil())
	})

	It("rides on a block-end and reaches the assembled message", func() {
		c := session.Chunk{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockToolCall, ID: "call_1", Name: "f", Arguments: "{}", Meta: meta}}
		d := session.ChunkData{Turn: 1, Step: 1, Attempt: 1, Chunk: c}
		back, err := session.DecodeChunkData(d.AppendJSON(nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Chunk.Block.Meta).To(MatchJSON(meta))
		var a llm.Assembler
		a.Add(session.Chunk{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall})
		a.Add(back.Chunk)
		Expect(a.Message().Content[0].Meta).To(MatchJSON(meta))
	})
})
