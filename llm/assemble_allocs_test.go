package llm_test

import (
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Assembler's text of many deltas", func() {
	text := func(i int, s string) llm.Chunk {
		return llm.Chunk{Type: session.ChunkTextDelta, Index: i, Text: s}
	}

	It("is joined whole, twice asked and after a delta more", func() {
		a := &llm.Assembler{}
		var want strings.Builder
		for i := range 300 {
			w := strings.Repeat("w", i%7) + " "
			a.Add(text(0, w))
			want.WriteString(w)
		}
		Expect(a.Message().Content[0].Text).To(Equal(want.String()))
		Expect(a.Message().Content[0].Text).To(Equal(want.String()), "asked again")
		a.Add(text(0, "end"))
		Expect(a.Message().Content[0].Text).To(Equal(want.String() + "end"))
	})

	DescribeTable("allocates for the text, not for each delta: three hundred deltas cost what three do",
		func(whole bool) {
			allocs := func(n int) float64 {
				chunks := []llm.Chunk{{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockText}}
				for range n {
					chunks = append(chunks, text(0, "word "))
				}
				if whole { // a complete block wins over the deltas: their buffer goes back
					chunks = append(chunks, llm.Chunk{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockText, Text: "words"}})
				}
				return testing.AllocsPerRun(50, func() {
					var a llm.Assembler
					for _, c := range chunks {
						a.Add(c)
					}
					_ = a.Message()
				})
			}
			few, many := allocs(3), allocs(300)
			if raceEnabled {
				Skip("the race detector drops pooled buffers; CI runs this spec without it (.ci/run)")
			}
			Expect(many).To(Equal(few), "3 deltas: %v allocations, 300: %v", few, many)
		},
		Entry("text joined from its deltas", false),
		Entry("text given whole at the block's end", true),
	)
})
