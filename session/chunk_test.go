package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

func intp(n int) *int { return &n }

var _ = Describe("Chunk JSON", func() {
	DescribeTable("round-trips every chunk type byte for byte",
		func(text string, want session.Chunk) {
			var c session.Chunk
			Expect(json.Unmarshal([]byte(text), &c)).To(Succeed())
			Expect(c).To(Equal(want))
			// MarshalData, not json.Marshal: encoding/json HTML-escapes the
			// output of every MarshalJSON, which logs avoid.
			out, err := session.MarshalData(c)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(out)).To(Equal(text))
		},
		Entry("block-start", `{"type":"block-start","index":1,"blockType":"tool-call"}`,
			session.Chunk{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockToolCall}),
		Entry("text-delta with characters encoding/json would escape", `{"type":"text-delta","index":0,"text":"a <b> & \"c\"\n\u2028"}`,
			session.Chunk{Type: session.ChunkTextDelta, Text: "a <b> & \"c\"\n\u2028"}),
		Entry("reasoning-delta", `{"type":"reasoning-delta","index":0,"text":"hmm"}`,
			session.Chunk{Type: session.ChunkReasoningDelta, Text: "hmm"}),
		Entry("tool-call-delta, first", `{"type":"tool-call-delta","index":2,"id":"call_1","name":"bash","argumentsDelta":"{\"a\""}`,
			session.Chunk{Type: session.ChunkToolCallDelta, Index: 2, ID: "call_1", Name: "bash", ArgumentsDelta: `{"a"`}),
		Entry("tool-call-delta, later", `{"type":"tool-call-delta","index":2,"argumentsDelta":"}"}`,
			session.Chunk{Type: session.ChunkToolCallDelta, Index: 2, ArgumentsDelta: "}"}),
		Entry("block-end of text", `{"type":"block-end","index":0,"block":{"type":"text","text":"hi"}}`,
			session.Chunk{Type: session.ChunkBlockEnd, Block: &session.Block{Type: session.BlockText, Text: "hi"}}),
		Entry("block-end of a tool call", `{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"n","arguments":"{}"}}`,
			session.Chunk{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockToolCall, ID: "c", Name: "n", Arguments: "{}"}}),
		Entry("usage with the optional counts", `{"type":"usage","usage":{"inputTokens":10,"outputTokens":2,"cacheReadTokens":0,"reasoningTokens":7}}`,
			session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: intp(0), ReasoningTokens: intp(7)}}),
		Entry("finish", `{"type":"finish","reason":{"kind":"max-tokens"}}`,
			session.Finish(session.FinishMaxTokens)),
		Entry("error finish", `{"type":"finish","reason":{"kind":"error","failure":{"message":"rate limited","code":"429"}}}`,
			session.ErrorFinish("429", "rate limited")),
		Entry("a chunk type this package does not know keeps all its members", `{"type":"citation","index":3,"text":"t","url":"u"}`,
			session.Chunk{Type: "citation", Extra: map[string]json.RawMessage{"index": json.RawMessage(`3`), "text": json.RawMessage(`"t"`), "url": json.RawMessage(`"u"`)}}),
		Entry("a known type keeps a member of another type", `{"type":"text-delta","index":0,"text":"x","id":"odd","signature":{"v":1}}`,
			session.Chunk{Type: session.ChunkTextDelta, Text: "x", Extra: map[string]json.RawMessage{"id": json.RawMessage(`"odd"`), "signature": json.RawMessage(`{"v":1}`)}}),
	)

	DescribeTable("refuses chunks it cannot decode",
		func(text string, message string) {
			var c session.Chunk
			Expect(json.Unmarshal([]byte(text), &c)).To(MatchError(ContainSubstring(message)))
		},
		Entry("no type", `{"index":0,"text":"x"}`, `chunk has no "type"`),
		Entry("a type that is not a string", `{"type":7}`, `chunk member "type": expected a string, found a number`),
		Entry("finish without a reason", `{"type":"finish"}`, `finish chunk has no "reason"`),
		Entry("a text that is a number", `{"type":"text-delta","index":0,"text":5}`, `text-delta chunk member "text": expected a string, found a number`),
		Entry("not an object", `["text-delta"]`, "expected a chunk object, found an array"),
	)

	It("reports whether a chunk ends a stream", func() {
		f := session.Finish(session.FinishStop)
		Expect(f.IsFinish()).To(BeTrue())
		Expect((&session.Chunk{Type: session.ChunkTextDelta}).IsFinish()).To(BeFalse())
	})
})

var _ = Describe("ChunkData JSON", func() {
	DescribeTable("round-trips the assistant/chunk payload",
		func(text string, want session.ChunkData) {
			var d session.ChunkData
			Expect(json.Unmarshal([]byte(text), &d)).To(Succeed())
			Expect(d).To(Equal(want))
			out, err := session.MarshalData(d)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(out)).To(Equal(text))
			fast, err := session.DecodeChunkData([]byte(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(fast).To(Equal(want))
		},
		Entry("with an attempt", `{"turn":2,"step":3,"attempt":2,"chunk":{"type":"text-delta","index":0,"text":"x"}}`,
			session.ChunkData{Turn: 2, Step: 3, Attempt: 2, Chunk: session.Chunk{Type: session.ChunkTextDelta, Text: "x"}}),
		Entry("without an attempt (dsh)", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}`,
			session.ChunkData{Turn: 1, Step: 1, Chunk: session.Finish(session.FinishStop)}),
	)

	DescribeTable("refuses payloads without what derivation needs",
		func(text, message string) {
			_, err := session.DecodeChunkData([]byte(text))
			Expect(err).To(MatchError(ContainSubstring(message)))
			var d session.ChunkData
			Expect(json.Unmarshal([]byte(text), &d)).NotTo(Succeed())
		},
		Entry("no step", `{"turn":1,"chunk":{"type":"text-delta","index":0,"text":"x"}}`, `assistant/chunk data needs "turn" and "step"`),
		Entry("no chunk", `{"turn":1,"step":1}`, `assistant/chunk data has no "chunk"`),
		Entry("a chunk that is not an object", `{"turn":1,"step":1,"chunk":"x"}`, `member "chunk": expected an object, found a string`),
		Entry("a fractional turn", `{"turn":1.5,"step":1,"chunk":{"type":"x"}}`, `member "turn": expected an integer, found 1.5`),
	)

	It("refuses empty data", func() {
		_, err := session.DecodeChunkData(nil)
		Expect(err).To(MatchError("assistant/chunk event has no data"))
	})
})

var _ = Describe("Part and Message JSON", func() {
	DescribeTable("writes each part type with its own members in a fixed order, and reads it back",
		func(p session.Part, text string) {
			out, err := session.MarshalData(p)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(out)).To(Equal(text))
			var back session.Part
			Expect(json.Unmarshal(out, &back)).To(Succeed())
			if p.Type == session.PartToolResult && p.Content == nil {
				p.Content = []session.Part{}
			}
			Expect(back).To(Equal(p))
		},
		Entry("text, without HTML escaping", session.TextPart("<a> & b"), `{"type":"text","text":"<a> & b"}`),
		Entry("reasoning", session.Part{Type: session.PartReasoning, Text: "why"}, `{"type":"reasoning","text":"why"}`),
		Entry("tool call", session.Part{Type: session.PartToolCall, ID: "c1", Name: "bash", Arguments: `{"cmd":"ls"}`},
			`{"type":"tool-call","id":"c1","name":"bash","arguments":"{\"cmd\":\"ls\"}"}`),
		Entry("tool result with content", session.Part{Type: session.PartToolResult, ToolCallID: "c1", Name: "bash", Content: []session.Part{session.TextPart("ok")}},
			`{"type":"tool-result","toolCallId":"c1","name":"bash","content":[{"type":"text","text":"ok"}],"isError":false}`),
		Entry("tool result that failed, without content or name", session.Part{Type: session.PartToolResult, ToolCallID: "c2", IsError: true},
			`{"type":"tool-result","toolCallId":"c2","content":[],"isError":true}`),
	)

	It("writes a message with its role, content and optional id", func() {
		m := session.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartReasoning, Text: "r"}, session.TextPart("Hello, "), session.TextPart("world"),
			{Type: session.PartToolCall, ID: "c1", Name: "n", Arguments: "{}"},
		}}
		out, err := session.MarshalData(m)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal(`{"role":"assistant","content":[{"type":"reasoning","text":"r"},{"type":"text","text":"Hello, "},{"type":"text","text":"world"},{"type":"tool-call","id":"c1","name":"n","arguments":"{}"}]}`))
		Expect(m.Text()).To(Equal("Hello, world"))
		Expect(m.ToolCalls()).To(Equal([]session.Part{m.Content[3]}))

		m.ID = "m1"
		out, err = session.MarshalData(m)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(HaveSuffix(`,"id":"m1"}`))
	})
})

var _ = Describe("Header and Event JSON", func() {
	It("marshals a header as its log line, and unmarshals it with the reader's checks", func() {
		h := session.Header{ID: "s", CreatedAt: 5, SeedLength: 3, Mode: session.ModeSpawn, Extra: map[string]json.RawMessage{"b": []byte(`2`), "a": []byte(`1`)}}
		out, err := json.Marshal(h)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal(`{"type":"session","version":0,"id":"s","createdAt":5,"seedLength":3,"delegationDepth":0,"mode":"spawn","a":1,"b":2}`))
		var back session.Header
		Expect(json.Unmarshal(out, &back)).To(Succeed())
		Expect(back).To(Equal(h))
		Expect(json.Unmarshal([]byte(`{"type":"session","version":2,"id":"s","createdAt":1}`), &back)).
			To(MatchError(ContainSubstring("version 2")))
		Expect(back.IsChild()).To(BeFalse())
	})

	It("treats null optional header strings as absent", func() {
		var h session.Header
		Expect(json.Unmarshal([]byte(`{"type":"session","version":0,"id":"s","createdAt":1,"parentSession":null,"mode":null}`), &h)).To(Succeed())
		Expect(h.ParentSession).To(BeEmpty())
		Expect(h.Mode).To(BeEmpty())
	})

	It("marshals an event as its log line with members in a fixed order", func() {
		e := session.Event{Type: "x", Seq: 4, Time: 9, Data: []byte(`{"k":1}`), Ignorable: true,
			SourceEventSeqs: []int64{1, 2}, SurfaceOp: []byte(`"append"`), Extra: map[string]json.RawMessage{"z": []byte(`null`)}}
		out, err := json.Marshal(e)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal(`{"type":"x","seq":4,"time":9,"data":{"k":1},"ignorable":true,"sourceEventSeqs":[1,2],"surfaceOp":"append","z":null}`))
		Expect(string(session.AppendEvent([]byte("prefix "), &e))).To(Equal("prefix " + string(out) + "\n"))
	})
})

var _ = Describe("payload helpers", func() {
	It("builds events from typed payloads, raw JSON, chunk data and nothing", func() {
		e, err := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(e.Data)).To(Equal(`{"turn":1,"trigger":"user"}`))

		e, err = session.NewEvent(session.TypeAssistantChunk, &session.ChunkData{Turn: 1, Step: 2, Attempt: 1, Chunk: session.Chunk{Type: session.ChunkTextDelta, Text: "<x>"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(e.Data)).To(Equal(`{"turn":1,"step":2,"attempt":1,"chunk":{"type":"text-delta","index":0,"text":"<x>"}}`))

		e, err = session.NewEvent("x/raw", json.RawMessage(`[1]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(e.Data)).To(Equal(`[1]`))

		e, err = session.NewEvent("x/none", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(e.Data).To(BeNil())

		_, err = session.NewEvent("x/bad", make(chan int))
		Expect(err).To(MatchError(ContainSubstring("session: encoding x/bad payload")))
	})

	DescribeTable("TurnStep finds the turn and step of a payload",
		func(data string, turn, step int, ok bool) {
			t, s, found := session.TurnStep(&session.Event{Data: []byte(data)})
			Expect([]any{t, s, found}).To(Equal([]any{turn, step, ok}))
		},
		Entry("both", `{"turn":2,"step":3,"chunk":{}}`, 2, 3, true),
		Entry("turn only", `{"turn":4,"reason":{}}`, 4, 0, true),
		Entry("neither", `{"title":"x"}`, 0, 0, false),
		Entry("not an object", `null`, 0, 0, false),
		Entry("a turn that is not an integer", `{"turn":"1"}`, 0, 0, false),
	)
})
