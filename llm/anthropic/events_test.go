package anthropic_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
)

// encoded is v as the old path wrote an event's data: encoding/json's
// Encoder with HTML escaping off, without its newline.
func encoded(v any) string {
	GinkgoHelper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	Expect(enc.Encode(v)).To(Succeed())
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}

// randomText draws a text from EventStrings, or random bytes.
func randomText(r *rand.Rand) string {
	if r.IntN(3) > 0 {
		return anthropic.EventStrings[r.IntN(len(anthropic.EventStrings))]
	}
	b := make([]byte, r.IntN(10))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

// randomMaybe is a random text half the time, else "".
func randomMaybe(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return ""
	}
	return randomText(r)
}

func randomCount(r *rand.Rand) *int {
	if r.IntN(2) == 0 {
		return nil
	}
	n := r.IntN(100000) - 10
	return &n
}

func randomUsage(r *rand.Rand) *session.Usage {
	if r.IntN(4) == 0 {
		return nil
	}
	return &session.Usage{InputTokens: r.IntN(5000) - 1, OutputTokens: r.IntN(5000), CacheReadTokens: randomCount(r), ReasoningTokens: randomCount(r)}
}

var _ = Describe("the events of a served stream", func() {
	r := rand.New(rand.NewPCG(41, 9))

	It("start as encoding/json writes message_start, HTML escaping off", func() {
		for range 2000 {
			id, model := randomText(r), randomText(r)
			want := encoded(anthropic.Event{Type: anthropic.EventMessageStart, Message: &anthropic.Response{ID: id, Type: "message",
				Role: session.RoleAssistant, Content: []anthropic.Block{}, Model: model, Usage: anthropic.APIUsage(nil)}})
			Expect(string(anthropic.AppendMessageStart([]byte("data: "), id, model))).To(Equal("data: "+want), "%q %q", id, model)
		}
	})

	It("start a block as encoding/json writes it through Block.MarshalJSON, of every type a stream starts and of unknown ones", func() {
		types := []string{anthropic.TypeText, anthropic.TypeThinking, anthropic.TypeRedactedThinking, anthropic.TypeToolUse, "image", ""}
		for range 3000 {
			b := anthropic.Block{Type: types[r.IntN(len(types))], Text: randomMaybe(r), Thinking: randomMaybe(r), Signature: randomMaybe(r),
				Data: randomMaybe(r), ID: randomMaybe(r), Name: randomMaybe(r), Input: json.RawMessage(`{}`)}
			if r.IntN(6) == 0 {
				b.Type = randomText(r)
			}
			index := r.IntN(300) - 3
			want := encoded(anthropic.Event{Type: anthropic.EventContentBlockStart, Index: &index, ContentBlock: &b})
			got, ok := anthropic.AppendBlockStart(nil, index, &b)
			Expect(ok).To(BeTrue())
			Expect(string(got)).To(Equal(want), "%#v", b)
		}
	})

	It("leave to marshal a start no stream makes: a tool_result, an input other than {}", func() {
		for _, b := range []anthropic.Block{
			{Type: anthropic.TypeToolResult, ToolUseID: "t", Content: anthropic.Content{{Type: anthropic.TypeText, Text: "x"}}},
			{Type: anthropic.TypeToolUse, ID: "t", Name: "f", Input: json.RawMessage(`{"k": 1}`)},
			{Type: anthropic.TypeToolUse, ID: "t", Name: "f"},
		} {
			got, ok := anthropic.AppendBlockStart([]byte("kept"), 0, &b)
			Expect(ok).To(BeFalse())
			Expect(string(got)).To(Equal("kept"))
		}
	})

	It("write a block's deltas and stop as encoding/json does, every member omitempty", func() {
		for range 3000 {
			d := anthropic.Delta{Type: randomMaybe(r), Text: randomMaybe(r), PartialJSON: randomMaybe(r), Thinking: randomMaybe(r), Signature: randomMaybe(r)}
			index := r.IntN(300) - 3
			got, ok := anthropic.AppendBlockDelta(nil, index, &d)
			Expect(ok).To(BeTrue())
			Expect(string(got)).To(Equal(encoded(anthropic.Event{Type: anthropic.EventContentBlockDelta, Index: &index, Delta: &d})), "%#v", d)
			Expect(string(anthropic.AppendBlockStop(nil, index))).To(Equal(encoded(anthropic.Event{Type: anthropic.EventContentBlockStop, Index: &index})))
		}
		got, ok := anthropic.AppendBlockDelta([]byte("kept"), 0, &anthropic.Delta{StopReason: json.RawMessage(`"end_turn"`)})
		Expect(ok).To(BeFalse(), "message_delta's members are marshal's")
		Expect(string(got)).To(Equal("kept"))
	})

	It("end as encoding/json writes message_delta, its stop_reason marshalled, and an error event", func() {
		for range 3000 {
			reason, u := randomText(r), randomUsage(r)
			raw, err := json.Marshal(reason)
			Expect(err).NotTo(HaveOccurred())
			want := encoded(anthropic.Event{Type: anthropic.EventMessageDelta, Delta: &anthropic.Delta{StopReason: raw, StopSequence: json.RawMessage("null")},
				Usage: anthropic.APIUsage(u)})
			Expect(string(anthropic.AppendMessageDelta(nil, reason, u))).To(Equal(want), "%q %+v", reason, u)
			e := anthropic.ErrorDetail{Type: randomText(r), Message: randomText(r)}
			Expect(string(anthropic.AppendErrorEvent(nil, &e))).To(Equal(encoded(anthropic.Event{Type: anthropic.EventError, Error: &e})))
		}
	})

	It("escape as the old path did: no HTML escaping, \\b as \\b in a delta but \\u0008 in a block (Block.MarshalJSON's)", func() {
		text := "<b> & \x01\u2028\xff\b"
		d, _ := anthropic.AppendBlockDelta(nil, 0, &anthropic.Delta{Type: anthropic.DeltaText, Text: text})
		Expect(string(d)).To(ContainSubstring(`"text":"<b> & \u0001\u2028\ufffd\b"`))
		s, _ := anthropic.AppendBlockStart(nil, 0, &anthropic.Block{Type: anthropic.TypeToolUse, ID: text, Name: "f", Input: json.RawMessage(`{}`)})
		Expect(string(s)).To(ContainSubstring(`"id":"<b> & \u0001\u2028\ufffd\u0008"`))
		m := anthropic.AppendMessageDelta(nil, "<&>", nil)
		Expect(string(m)).To(ContainSubstring(`"stop_reason":"\u003c\u0026\u003e"`), "json.Marshal's RawMessage")
	})
})

var _ = Describe("serving a stream by hand", func() {
	r := rand.New(rand.NewPCG(5, 77))

	It("writes, flushes and returns what the reflection path did, for random chunks, ids and models, a write failing anywhere", func() {
		for i := range 3000 {
			in := make([]byte, r.IntN(120))
			for k := range in {
				in[k] = byte(r.IntN(256))
			}
			failAt := 0
			if i%3 == 0 {
				failAt = 1 + r.IntN(12)
			}
			Expect(anthropic.SameServe(randomText(r), randomText(r), anthropic.FuzzChunks(in), failAt)).To(BeEmpty(), "chunks %+v", anthropic.FuzzChunks(in))
		}
	})

	It("leaves to marshal what no stream makes, writing what it did: a tool_result start, an input, message_delta's members", func() {
		zero := 0
		for _, b := range []anthropic.Block{
			{Type: anthropic.TypeToolResult, ToolUseID: "t<", Content: anthropic.Content{{Type: anthropic.TypeText, Text: "x\b"}}, IsError: true},
			{Type: anthropic.TypeToolUse, ID: "t", Name: "f", Input: json.RawMessage(` {"k": "<1>"} `)},
		} {
			got, err := anthropic.WriteQueued(anthropic.EventContentBlockStart, b, anthropic.Delta{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal("event: content_block_start\ndata: " + encoded(anthropic.Event{Type: anthropic.EventContentBlockStart, Index: &zero, ContentBlock: &b}) + "\n\n"))
		}
		d := anthropic.Delta{Type: "x", StopReason: json.RawMessage(`"<end>"`), StopSequence: json.RawMessage(` null `)}
		got, err := anthropic.WriteQueued(anthropic.EventContentBlockDelta, anthropic.Block{}, d)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal("event: content_block_delta\ndata: " + encoded(anthropic.Event{Type: anthropic.EventContentBlockDelta, Index: &zero, Delta: &d}) + "\n\n"))
		got, err = anthropic.WriteQueued(anthropic.EventContentBlockStart, anthropic.Block{Type: anthropic.TypeToolUse, Input: json.RawMessage(`{`)}, anthropic.Delta{})
		Expect(err).To(HaveOccurred(), "an input that is not JSON, as marshal refuses it")
		Expect(got).To(BeEmpty())
	})

	It("serves an outsized event, and the stream after it, as the reflection path did", func() {
		big := strings.Repeat("<word> ", 20000)
		outsized := []session.Chunk{{Type: session.ChunkTextDelta, Text: big}, {Type: session.ChunkBlockEnd, Block: &session.Block{Type: session.BlockText, Text: big}},
			{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishStop}}}
		Expect(anthropic.SameServe("msg_1", "m", outsized, 0)).To(BeEmpty())
		Expect(anthropic.SameServe("msg_2", "m", streamWithMeta(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hi")}}, nil), 0)).To(BeEmpty())
	})

	It("stops at the finish, reading no chunk after it, and writes nothing for a yield past it", func() {
		chunks := append(streamWithMeta(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hi")}}, nil),
			session.Chunk{Type: session.ChunkTextDelta, Text: "late"})
		var b bytes.Buffer
		var after []bool
		Expect(anthropic.ServeStream(&b, func() {}, "msg_1", "m", func(yield func(session.Chunk) bool) {
			for i, c := range chunks {
				if !yield(c) {
					after = append(after, yield(chunks[len(chunks)-1]))
					Expect(i).To(Equal(len(chunks) - 2))
					return
				}
			}
		})).To(Succeed())
		Expect(after).To(Equal([]bool{false}))
		Expect(b.String()).NotTo(ContainSubstring("late"))
		Expect(b.String()).To(HaveSuffix(sse(`{"type":"message_stop"}`)))
	})

	It("returns a write's error, asking for no chunk after it", func() {
		chunks := streamWithMeta(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("one two three")}}, nil)
		w := &failingWriter{failAt: 3}
		yields := 0
		err := anthropic.ServeStream(w, func() {}, "msg_1", "m", func(yield func(session.Chunk) bool) {
			for _, c := range chunks {
				yields++
				if !yield(c) {
					return
				}
			}
		})
		Expect(err).To(MatchError(anthropic.ErrWrite))
		Expect(yields).To(Equal(2), "the block-start's event and the first delta's")
		Expect(w.writes).To(Equal(3))
	})

	It("gives a yield kept past its return to nothing: neither its writer nor the next call's", func() {
		var kept func(session.Chunk) bool
		var first bytes.Buffer
		// Cut before its finish: only the return ends the stream.
		Expect(anthropic.ServeStream(&first, func() {}, "msg_1", "m", func(yield func(session.Chunk) bool) {
			kept = yield
			yield(session.Chunk{Type: session.ChunkBlockStart, BlockType: session.BlockText})
			yield(session.Chunk{Type: session.ChunkTextDelta, Text: "one"})
		})).To(Succeed())
		sent := first.String()
		chunks := streamWithMeta(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hello")}}, nil)
		var second bytes.Buffer
		Expect(anthropic.ServeStream(&second, func() {}, "msg_2", "m", func(yield func(session.Chunk) bool) {
			Expect(kept(session.Chunk{Type: session.ChunkTextDelta, Text: "ghost"})).To(BeFalse())
			for _, c := range chunks {
				if !yield(c) || kept(session.Chunk{Type: session.ChunkTextDelta, Text: "ghost"}) {
					return
				}
			}
		})).To(Succeed())
		Expect(first.String()).To(Equal(sent))
		Expect(second.String()).NotTo(ContainSubstring("ghost"))
		var want bytes.Buffer
		Expect(anthropic.ServeStream(&want, func() {}, "msg_2", "m", slices.Values(chunks))).To(Succeed())
		Expect(second.String()).To(Equal(want.String()))
	})
})

// failingWriter fails its failAt-th write.
type failingWriter struct{ writes, failAt int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes == w.failAt {
		return 0, anthropic.ErrWrite
	}
	return len(p), nil
}
