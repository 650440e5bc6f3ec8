package llm_test

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

func intp(n int) *int { return &n }

var _ = Describe("SplitDeltas", func() {
	DescribeTable("gives back its input when the pieces are joined, in pieces of 1 to 8 bytes",
		func(s string) {
			pieces := llm.SplitDeltas(s)
			Expect(strings.Join(pieces, "")).To(Equal(s))
			for _, p := range pieces {
				Expect(len(p)).To(BeNumerically(">=", 1), "piece %q of %q", p, s)
				Expect(len(p)).To(BeNumerically("<=", 8), "piece %q of %q", p, s)
				if utf8.ValidString(s) {
					Expect(utf8.ValidString(p)).To(BeTrue(), "piece %q of %q splits a rune", p, s)
				}
			}
		},
		Entry("plain words", "the quick brown fox"),
		Entry("multi-byte runes", "héllo wörld, 日本語のテキストです 🎉🎉🎉"),
		Entry("a long word", "antidisestablishmentarianism"),
		Entry("a long word of 4-byte runes", "🎉🎉🎉🎉🎉🎉🎉"),
		Entry("leading and trailing spaces", "   padded   "),
		Entry("tabs and newlines", "line one\n\tline two\r\n"),
		Entry("JSON arguments", `{"description":"Recall the codeword","prompt":"What is it?"}`),
		Entry("a word ending in a rune whose last byte is 0xA0", "voilà monde"),
		Entry("only spaces", "            "),
		Entry("invalid UTF-8 in a long word", "ab\xff\xfe\xfdcdefgh\xc3"),
	)

	It("returns no pieces for the empty string", func() {
		Expect(llm.SplitDeltas("")).To(BeEmpty())
	})

	DescribeTable("cuts before each word and every 8 bytes of a long word",
		func(s string, want []string) { Expect(llm.SplitDeltas(s)).To(Equal(want)) },
		Entry("words keep the space before them", "Hello big world", []string{"Hello", " big", " world"}),
		Entry("leading spaces stay with the first word", "  lead on", []string{"  lead", " on"}),
		Entry("trailing spaces are a piece of their own", "trail  ", []string{"trail", "  "}),
		Entry("a long word", "extraordinarily", []string{"extraord", "inarily"}),
		Entry("two-byte runes are not split", "éééééé", []string{"éééé", "éé"}),
		Entry("a space after a rune ending in byte 0xA0 still cuts", "voilà monde", []string{"voilà", " monde"}),
	)
})

var _ = Describe("StreamMessage", func() {
	It("streams a message as block-start, deltas and block-end per part, then usage and finish", func() {
		m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartReasoning, Text: "Need facts."},
			session.TextPart("Checking."),
			{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`},
		}}
		got := llm.StreamMessage(m, &session.Usage{InputTokens: 5, OutputTokens: 3}, "")
		Expect(got).To(Equal([]llm.Chunk{
			start(0, session.BlockReasoning),
			{Type: session.ChunkReasoningDelta, Index: 0, Text: "Need"},
			{Type: session.ChunkReasoningDelta, Index: 0, Text: " facts."},
			end(0, session.Block{Type: session.BlockReasoning, Text: "Need facts."}),
			start(1, session.BlockText),
			{Type: session.ChunkTextDelta, Index: 1, Text: "Checking"},
			{Type: session.ChunkTextDelta, Index: 1, Text: "."},
			end(1, session.Block{Type: session.BlockText, Text: "Checking."}),
			start(2, session.BlockToolCall),
			callDelta(2, "call_1", "lookup", `{"key":"`),
			callDelta(2, "", "", `release"`),
			callDelta(2, "", "", `}`),
			end(2, session.Block{Type: session.BlockToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`}),
			{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 5, OutputTokens: 3}},
			session.Finish(session.FinishToolCalls),
		}))
	})

	It("sends one delta naming a tool call that has no arguments", func() {
		m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartToolCall, ID: "call_1", Name: "now"},
		}}
		Expect(llm.StreamMessage(m, nil, "")).To(Equal([]llm.Chunk{
			start(0, session.BlockToolCall),
			callDelta(0, "call_1", "now", ""),
			end(0, session.Block{Type: session.BlockToolCall, ID: "call_1", Name: "now"}),
			session.Finish(session.FinishToolCalls),
		}))
	})

	DescribeTable("assembles back into the message it streamed",
		func(parts []session.Part) {
			m := llm.Message{Role: session.RoleAssistant, Content: parts}
			a := assemble(llm.StreamMessage(m, nil, "")...)
			Expect(a.Message()).To(Equal(m))
		},
		Entry("text", []session.Part{session.TextPart("The largest planet is Jupiter.")}),
		Entry("multi-byte text", []session.Part{session.TextPart("日本語のテキスト — ça marche 🎉")}),
		Entry("reasoning then text", []session.Part{{Type: session.PartReasoning, Text: "  think  "}, session.TextPart("ok\n")}),
		Entry("two tool calls", []session.Part{
			{Type: session.PartToolCall, ID: "call_a", Name: "add", Arguments: `{"a":1,"b":2}`},
			{Type: session.PartToolCall, ID: "call_b", Name: "subagent_spawn", Arguments: `{"description":"a long description","prompt":"p"}`},
		}),
		Entry("empty text", []session.Part{session.TextPart("")}),
		Entry("parts with what the API wants back (meta)", []session.Part{
			{Type: session.PartReasoning, Text: "think", Meta: json.RawMessage(`{"id":"rs_1","encrypted_content":"gAAA"}`)},
			{Type: session.PartText, Text: "ok", Meta: json.RawMessage(`{"signature":"sig"}`)},
			{Type: session.PartToolCall, ID: "call_a", Name: "add", Arguments: `{"a":1}`, Meta: json.RawMessage(`{"thoughtSignature":"t"}`)},
		}),
	)

	It("gives each part's deltas the part's index and delta type", func() {
		m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{
			session.TextPart("one two three"),
			{Type: session.PartReasoning, Text: "four five"},
		}}
		deltas := map[int][]string{}
		for _, c := range llm.StreamMessage(m, nil, "") {
			switch c.Type {
			case session.ChunkTextDelta:
				deltas[c.Index] = append(deltas[c.Index], "text:"+c.Text)
			case session.ChunkReasoningDelta:
				deltas[c.Index] = append(deltas[c.Index], "reasoning:"+c.Text)
			}
		}
		Expect(deltas).To(Equal(map[int][]string{
			0: {"text:one", "text: two", "text: three"},
			1: {"reasoning:four", "reasoning: five"},
		}))
	})

	DescribeTable("picks the finish",
		func(parts []session.Part, finish, want string) {
			chunks := llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: parts}, nil, finish)
			Expect(chunks[len(chunks)-1]).To(Equal(session.Finish(want)))
		},
		Entry("stop for text", []session.Part{session.TextPart("hi")}, "", session.FinishStop),
		Entry("tool-calls when the message calls tools", []session.Part{session.TextPart("hi"), {Type: session.PartToolCall, ID: "c", Name: "n"}}, "", session.FinishToolCalls),
		Entry("the given finish even with tool calls", []session.Part{{Type: session.PartToolCall, ID: "c", Name: "n"}}, session.FinishMaxTokens, session.FinishMaxTokens),
		Entry("stop for an empty message", nil, "", session.FinishStop),
	)

	It("puts a copy of the usage just before the finish, and none when usage is nil", func() {
		m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("a b c")}}
		u := &session.Usage{InputTokens: 1, OutputTokens: 2, ReasoningTokens: intp(0)}
		chunks := llm.StreamMessage(m, u, "")
		n := len(chunks)
		Expect(chunks[n-2]).To(Equal(llm.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 1, OutputTokens: 2, ReasoningTokens: intp(0)}}))
		u.InputTokens = 99
		Expect(chunks[n-2].Usage.InputTokens).To(Equal(1), "the chunk must not alias the caller's usage")

		for _, c := range llm.StreamMessage(m, nil, "") {
			Expect(c.Type).NotTo(Equal(session.ChunkUsage))
		}
	})

	It("skips parts that are not model output", func() {
		m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartToolResult, ToolCallID: "c"},
			session.TextPart("x"),
		}}
		Expect(llm.StreamMessage(m, nil, "")).To(Equal([]llm.Chunk{
			start(1, session.BlockText),
			{Type: session.ChunkTextDelta, Index: 1, Text: "x"},
			end(1, session.Block{Type: session.BlockText, Text: "x"}),
			session.Finish(session.FinishStop),
		}))
	})
})
