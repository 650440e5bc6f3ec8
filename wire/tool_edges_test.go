package wire_test

import (
	"context"
	"iter"
	"slices"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Handler.Tool under Infer lineage", func() {
	ctx := context.Background()
	run := func(text string) func(context.Context) session.ToolOutput {
		return func(context.Context) session.ToolOutput { return session.ToolOutput{Text: text} }
	}

	It("finds the one session whose answer made two alike calls, and runs them in turn", func() {
		alike := []session.Part{toolCall("call_1", "lookup", `{"key":"release"}`), toolCall("call_2", "lookup", `{"key":"release"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {alike}}), func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		var ids []string
		for _, text := range []string{"first", "second"} {
			made, err := h.ToolCall(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`})
			Expect(err).NotTo(HaveOccurred(), "one session waits for both calls: no other to tell it from")
			ids = append(ids, made.ID)
			out, err := h.Tool(ctx, nil, session.Part{ID: made.ID, Name: "lookup"}, run(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Text).To(Equal(text))
		}
		Expect(ids).To(Equal([]string{"call_1", "call_2"}))
	})

	It("finds a call whose name only its first delta gave (a stream without block-ends)", func() {
		drv := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values([]llm.Chunk{
				{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall},
				{Type: session.ChunkToolCallDelta, Index: 0, ID: "call_1", Name: "lookup", ArgumentsDelta: `{"key":`},
				{Type: session.ChunkToolCallDelta, Index: 0, ArgumentsDelta: `"release"}`},
				{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishToolCalls}},
			}), nil
		})
		h, _, url := serveWire(drv, func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		out, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: `{"key":"release"}`}, run("found"))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("found"))
	})

	It("waits for no call of an answer once its results came back, though the answer gave two calls one id", func() {
		same := []session.Part{toolCall("call_1", "lookup", `{"key":"a"}`), toolCall("call_1", "lookup", `{"key":"b"}`)}
		h, _, url := serveWire(script(map[string][]any{"root": {same, "both"}}), func(c *wire.Config) { c.Lineage = wire.Infer })
		ok(url, chat(user("hi")), nil)
		ok(url, chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"a"}`}, [3]string{"call_1", "lookup", `{"key":"b"}`}),
			result("call_1", "A"), result("call_1", "B")), nil)
		for _, args := range []string{`{"key":"a"}`, `{"key":"b"}`} {
			_, err := h.Tool(ctx, nil, session.Part{Name: "lookup", Arguments: args}, run("x"))
			Expect(err).To(MatchError(ContainSubstring("no session waits for the result of such a call")), args)
		}
	})
})
