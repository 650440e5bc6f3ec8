package openai_test

import (
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// callDelta is one delta.tool_calls entry at index; an empty id or name
// is left out, as servers do on later fragments.
func callDelta(index int, id, name, args string) string {
	m := map[string]any{"index": index, "function": map[string]string{"arguments": args}}
	if id != "" {
		m["id"], m["type"] = id, "function"
	}
	if name != "" {
		m["function"].(map[string]string)["name"] = name
	}
	b, err := json.Marshal(map[string]any{"tool_calls": []any{m}})
	Expect(err).NotTo(HaveOccurred())
	return chunk(string(b), "null")
}

// eventStream is frames as the body of a 200 answer, ending in
// finish_reason tool_calls and [DONE].
func eventStream(frames ...string) string {
	var b strings.Builder
	for _, f := range append(frames, chunk(`{}`, `"tool_calls"`), "[DONE]") {
		b.WriteString("data: " + f + "\n\n")
	}
	return b.String()
}

// toolCallIDs returns the ids of the tool-call block-ends in index order,
// the id each tool-call-delta that names one gives its block, and the
// arguments of each block-end.
func toolCallIDs(chunks []session.Chunk) (ends []string, named map[int]string, args []string) {
	named = map[int]string{}
	for _, c := range chunks {
		switch {
		case c.Type == session.ChunkToolCallDelta && c.ID != "":
			Expect(named).NotTo(HaveKey(c.Index), "block %d named twice", c.Index)
			named[c.Index] = c.ID
		case c.Type == session.ChunkBlockEnd && c.Block.Type == session.BlockToolCall:
			ends, args = append(ends, c.Block.ID), append(args, c.Block.Arguments)
		}
	}
	return ends, named, args
}

var _ = Describe("tool-call ids within one response", func() {
	DescribeTable("are unique, stable, and the same in the delta that names them and in the block-end",
		func(frames []string, wantIDs, wantArgs []string) {
			body := eventStream(frames...)
			chunks := openai.DecodeBody(context.Background(), strings.NewReader(body))
			Expect(openai.CheckProtocol(chunks)).To(Succeed())
			Expect(last(chunks).Kind).To(Equal(session.FinishToolCalls))

			ends, named, args := toolCallIDs(chunks)
			Expect(ends).To(Equal(wantIDs))
			Expect(args).To(Equal(wantArgs))
			By("naming every call in a delta — the one a client of the stream reads first — by the id its block-end carries")
			Expect(named).To(HaveLen(len(wantIDs)))
			for _, c := range chunks {
				if c.Type == session.ChunkBlockEnd && c.Block.Type == session.BlockToolCall {
					if id, ok := named[c.Index]; ok {
						Expect(c.Block.ID).To(Equal(id), "block %d", c.Index)
					}
				}
			}

			By("giving the same ids to the same bytes")
			again := openai.DecodeBody(context.Background(), strings.NewReader(body))
			Expect(jsonLines(again)).To(Equal(jsonLines(chunks)))
		},
		Entry("(a) no ids at all, two parallel calls: call_<block index>",
			[]string{callDelta(0, "", "a", `{"x":`), callDelta(1, "", "b", `{}`), callDelta(0, "", "", `1}`)},
			[]string{"call_0", "call_1"}, []string{`{"x":1}`, `{}`}),
		Entry("(b) call_0 at index 0 and 1: the second becomes call_0_<block index>",
			[]string{callDelta(0, "call_0", "a", `{}`), callDelta(1, "call_0", "b", `{}`)},
			[]string{"call_0", "call_0_1"}, []string{`{}`, `{}`}),
		Entry("(c) three calls with the same id",
			[]string{callDelta(0, "call_0", "a", `{}`), callDelta(1, "call_0", "b", `{}`), callDelta(2, "call_0", "c", `{}`)},
			[]string{"call_0", "call_0_1", "call_0_2"}, []string{`{}`, `{}`, `{}`}),
		Entry("(d) call_0, call_0, call_0_2: the rename call_0_1 does not meet the real call_0_2",
			[]string{callDelta(0, "call_0", "a", `{}`), callDelta(1, "call_0", "b", `{}`), callDelta(2, "call_0_2", "c", `{}`)},
			[]string{"call_0", "call_0_1", "call_0_2"}, []string{`{}`, `{}`, `{}`}),
		Entry("(d) a real id that arrives after a rename took it is renamed in turn",
			[]string{chunk(`{"content":"Both."}`, "null"), // the calls are blocks 1, 2, 3
				callDelta(0, "call_0", "a", `{}`), callDelta(1, "call_0", "b", `{}`), callDelta(2, "call_0_2", "c", `{}`)},
			[]string{"call_0", "call_0_2", "call_0_2_3"}, []string{`{}`, `{}`, `{}`}),
		Entry("(d) a rename whose first choice is a real id takes the next free suffix",
			[]string{callDelta(0, "call_0", "a", `{}`), callDelta(1, "call_0_2", "b", `{}`), callDelta(2, "call_0", "c", `{}`)},
			[]string{"call_0", "call_0_2", "call_0_2_2"}, []string{`{}`, `{}`, `{}`}),
		Entry("a call without id is named call_<block index> at its first delta; a real id that arrives later and meets it is renamed",
			[]string{callDelta(0, "", "a", `{}`), callDelta(1, "call_0", "b", `{}`)},
			[]string{"call_0", "call_0_1"}, []string{`{}`, `{}`}),
		Entry("fragments that repeat the shared id stay with their own call",
			[]string{callDelta(0, "call_0", "a", `{"x":`), callDelta(1, "call_0", "b", `{"y":`),
				callDelta(0, "call_0", "", `1}`), callDelta(1, "call_0", "", `2}`)},
			[]string{"call_0", "call_0_1"}, []string{`{"x":1}`, `{"y":2}`}),
		Entry("a proxy reusing index 0 opens a call per new id, renaming an id it comes back to",
			[]string{callDelta(0, "c1", "a", `{"x":`), callDelta(0, "", "", `1}`), callDelta(0, "c2", "b", `{}`), callDelta(0, "c1", "c", `{}`)},
			[]string{"c1", "c2", "c1_2"}, []string{`{"x":1}`, `{}`, `{}`}),
	)

	It("keeps an id repeated across responses, since each response is decoded on its own", func() {
		body := eventStream(callDelta(0, "call_0", "a", `{}`))
		for range 2 {
			ends, _, _ := toolCallIDs(openai.DecodeBody(context.Background(), strings.NewReader(body)))
			Expect(ends).To(Equal([]string{"call_0"}))
		}
	})
})
