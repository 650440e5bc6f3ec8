package session_test

import (
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("DecodeChunkData's one-pass layout", func() {
	// same checks that DecodeChunkData agrees with the member-by-member
	// decoder, in value and in failing, and that CanonicalChunkData (which
	// lets a store skip validating the data) takes what the one pass takes.
	same := func(data string) {
		got, err := session.DecodeChunkData([]byte(data))
		want, wantErr := session.DecodeChunkDataMembers([]byte(data))
		Expect(err != nil).To(Equal(wantErr != nil), "%s: one pass %v, members %v", data, err, wantErr)
		Expect(got).To(Equal(want), data)
		Expect(session.CanonicalChunkData([]byte(data))).To(Equal(session.DecodesCanonically([]byte(data))), data)
	}

	It("reads what AppendJSON writes for every chunk in one pass, as the member decoder does", func() {
		n := 0
		for _, s := range awkward {
			seven, zero := 7, 0
			for _, d := range []session.ChunkData{
				{Turn: 1, Step: 2, Attempt: 1, Chunk: session.Chunk{Type: session.ChunkBlockEnd, Index: 3, Block: &session.Block{Type: session.BlockText, Text: s}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkBlockEnd, Block: &session.Block{Type: session.BlockReasoning}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockToolCall, ID: s, Name: s, Arguments: s}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: "image", Text: s}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkBlockEnd, Index: 2}},
				{Turn: 1, Step: 2, Attempt: 2, Chunk: session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 5, OutputTokens: -6}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{CacheReadTokens: &seven, ReasoningTokens: &zero}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{ReasoningTokens: &seven}}},
				{Turn: 1, Step: 2, Attempt: 1, Chunk: session.Finish(session.FinishToolCalls)},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: s}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Message: s, Code: s, Status: 503}}}},
				{Turn: 1, Step: 2, Chunk: session.Chunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Message: s}}}},
				{Turn: 1, Step: 2, Attempt: 3, Chunk: session.Chunk{Type: session.ChunkTextDelta, Index: 4, Text: s}},
				{Turn: -10, Step: 20, Chunk: session.Chunk{Type: session.ChunkReasoningDelta, Text: s}},
				{Turn: 1, Step: 1, Attempt: 1, Chunk: session.Chunk{Type: session.ChunkToolCallDelta, Index: 2, ID: s, Name: s, ArgumentsDelta: s}},
				{Turn: 1, Step: 1, Chunk: session.Chunk{Type: session.ChunkToolCallDelta, ArgumentsDelta: s}},
				{Turn: 1, Step: 1, Chunk: session.Chunk{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockReasoning}},
				{Turn: 1, Step: 1, Chunk: session.Chunk{Type: session.ChunkBlockStart, BlockType: s}},
			} {
				data := d.AppendJSON(nil)
				Expect(session.DecodesCanonically(data)).To(BeTrue(), string(data))
				got, err := session.DecodeChunkData(data)
				Expect(err).NotTo(HaveOccurred())
				if utf8.ValidString(s) { // else the encoding wrote U+FFFD
					Expect(got).To(Equal(d))
				}
				same(string(data))
				n++
			}
		}
		Expect(n).To(Equal(18 * len(awkward)))
	})

	DescribeTable("leaves every other layout to the member decoder, with the same result",
		func(data string) {
			Expect(session.DecodesCanonically([]byte(data))).To(BeFalse())
			same(data)
		},
		Entry("members reordered", `{"step":1,"turn":2,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("chunk members reordered", `{"turn":1,"step":1,"chunk":{"type":"text-delta","text":"a","index":0}}`),
		Entry("a space", `{"turn":1, "step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("a leading zero (not JSON)", `{"turn":01,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("a minus without digits", `{"turn":-,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("a negative leading zero", `{"turn":-01,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("a fraction", `{"turn":1.5,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("an exponent", `{"turn":1e2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("19 digits", `{"turn":1234567890123456789,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("an unknown member", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a","x":1}}`),
		Entry("an unknown payload member", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"},"x":1}`),
		Entry("a duplicate member", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a","text":"b"}}`),
		Entry("trailing bytes", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}} `),
		Entry("an escaped type", `{"turn":1,"step":1,"chunk":{"type":"text\u002ddelta","index":0,"text":"a"}}`),
		Entry("an escaped key", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"t\u0065xt":"a"}}`),
		Entry("a null id", `{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":null,"argumentsDelta":"{"}}`),
		Entry("a text that is not a string", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":5}}`),
		Entry("a broken escape", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"\x"}}`),
		Entry("a raw control character", "{\"turn\":1,\"step\":1,\"chunk\":{\"type\":\"text-delta\",\"index\":0,\"text\":\"a\tb\"}}"),
		Entry("an unterminated text", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a}}`),
		Entry("a finish without a reason", `{"turn":1,"step":1,"chunk":{"type":"finish"}}`),
		Entry("a finish with a null reason", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":null}}`),
		Entry("a reason member unknown", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop","x":1}}}`),
		Entry("failure members reordered", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"code":"X","message":"m"}}}}`),
		Entry("a failure status as a fraction", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","status":5.5}}}}`),
		Entry("a usage with a fraction", `{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1.5,"outputTokens":2}}}`),
		Entry("a usage with a null count", `{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1,"outputTokens":2,"cacheReadTokens":null}}}`),
		Entry("a usage without its counts", `{"turn":1,"step":1,"chunk":{"type":"usage","usage":{}}}`),
		Entry("an escaped block type", `{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"t\u0065xt","text":"a"}}}`),
		Entry("a block with meta", `{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"a","meta":{"x":1}}}}`),
		Entry("a null block", `{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":null}}`),
		Entry("a tool-call block in the text layout", `{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","text":"a"}}}`),
		Entry("a text block in the tool-call layout", `{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","id":"a","name":"b","arguments":"{}"}}}`),
		Entry("a block-end without its index", `{"turn":1,"step":1,"chunk":{"type":"block-end","block":{"type":"text","text":"a"}}}`),
		Entry("no step", `{"turn":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}`),
		Entry("cut short", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}`),
	)
})
