package llm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

func start(i int, blockType string) llm.Chunk {
	return llm.Chunk{Type: session.ChunkBlockStart, Index: i, BlockType: blockType}
}

func callDelta(i int, id, name, args string) llm.Chunk {
	return llm.Chunk{Type: session.ChunkToolCallDelta, Index: i, ID: id, Name: name, ArgumentsDelta: args}
}

func end(i int, b session.Block) llm.Chunk {
	return llm.Chunk{Type: session.ChunkBlockEnd, Index: i, Block: &b}
}

func assemble(chunks ...llm.Chunk) *llm.Assembler {
	a := &llm.Assembler{}
	for _, c := range chunks {
		a.Add(c)
	}
	return a
}

var _ = Describe("Assembler", func() {
	It("gives an empty assistant message, no usage and no finish for no chunks", func() {
		a := assemble()
		Expect(a.Message()).To(Equal(llm.Message{Role: session.RoleAssistant, Content: []session.Part{}}))
		Expect(a.Usage()).To(BeNil())
		Expect(a.Finish()).To(BeNil())
	})

	It("orders blocks by when they started, not by index", func() {
		a := assemble(
			start(1, session.BlockReasoning),
			start(0, session.BlockText),
			llm.Chunk{Type: session.ChunkTextDelta, Index: 0, Text: "answer"},
			llm.Chunk{Type: session.ChunkReasoningDelta, Index: 1, Text: "thought"},
		)
		Expect(a.Message().Content).To(Equal([]session.Part{
			{Type: session.PartReasoning, Text: "thought"},
			session.TextPart("answer"),
		}))
	})

	It("opens a block on a delta that had no block-start", func() {
		a := assemble(
			llm.Chunk{Type: session.ChunkTextDelta, Index: 2, Text: "Hel"},
			llm.Chunk{Type: session.ChunkTextDelta, Index: 2, Text: "lo"},
			callDelta(5, "call_1", "add", `{}`),
		)
		Expect(a.Message().Content).To(Equal([]session.Part{
			session.TextPart("Hello"),
			{Type: session.PartToolCall, ID: "call_1", Name: "add", Arguments: `{}`},
		}))
	})

	DescribeTable("lets a block-end's complete block win over the deltas",
		func(chunks []llm.Chunk, want session.Part) {
			Expect(assemble(chunks...).Message().Content).To(Equal([]session.Part{want}))
		},
		Entry("text", []llm.Chunk{
			start(0, session.BlockText),
			llm.Chunk{Type: session.ChunkTextDelta, Index: 0, Text: "Hel"},
			end(0, session.Block{Type: session.BlockText, Text: "Hello!"}),
		}, session.TextPart("Hello!")),
		Entry("reasoning", []llm.Chunk{
			start(0, session.BlockReasoning),
			llm.Chunk{Type: session.ChunkReasoningDelta, Index: 0, Text: "hmm"},
			end(0, session.Block{Type: session.BlockReasoning, Text: "hmm, yes"}),
		}, session.Part{Type: session.PartReasoning, Text: "hmm, yes"}),
		Entry("tool call", []llm.Chunk{
			start(0, session.BlockToolCall),
			callDelta(0, "call_delta", "from_delta", `{"a":`),
			end(0, session.Block{Type: session.BlockToolCall, ID: "call_end", Name: "from_end", Arguments: `{"a":2}`}),
		}, session.Part{Type: session.PartToolCall, ID: "call_end", Name: "from_end", Arguments: `{"a":2}`}),
		Entry("a block-end without a block-start", []llm.Chunk{
			end(3, session.Block{Type: session.BlockText, Text: "only the end"}),
		}, session.TextPart("only the end")),
	)

	DescribeTable("takes a tool call's id and name from the first delta that carries them",
		func(chunks []llm.Chunk, want session.Part) {
			Expect(assemble(chunks...).Message().Content).To(Equal([]session.Part{want}))
		},
		Entry("later deltas without id or name keep them", []llm.Chunk{
			start(0, session.BlockToolCall),
			callDelta(0, "call_1", "lookup", `{"key"`),
			callDelta(0, "", "", `:"release"}`),
		}, session.Part{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`}),
		Entry("a later stray id or name does not rename the call", []llm.Chunk{
			callDelta(0, "call_1", "lookup", `{`),
			callDelta(0, "call_2", "other", `}`),
		}, session.Part{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{}`}),
		Entry("id and name arriving on different deltas", []llm.Chunk{
			callDelta(0, "call_1", "", ``),
			callDelta(0, "", "add", `{"a":1,"b":2}`),
		}, session.Part{Type: session.PartToolCall, ID: "call_1", Name: "add", Arguments: `{"a":1,"b":2}`}),
	)

	It("reports the usage and the finish reason of the stream", func() {
		in := 7
		a := assemble(
			llm.Chunk{Type: session.ChunkTextDelta, Index: 0, Text: "x"},
			llm.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: &in}},
			session.Finish(session.FinishMaxTokens),
		)
		Expect(a.Usage()).To(Equal(&session.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: &in}))
		Expect(a.Finish()).To(Equal(&session.FinishReason{Kind: session.FinishMaxTokens}))
	})

	It("keeps an error finish's failure", func() {
		a := assemble(session.ErrorFinish("RATE_LIMIT", "slow down"))
		Expect(a.Finish()).To(Equal(&session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "RATE_LIMIT", Message: "slow down"}}))
	})
})
