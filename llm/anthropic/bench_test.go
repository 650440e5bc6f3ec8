package anthropic

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

// benchText is a text answer of n deltas, with usage, as a live driver
// streams it.
func benchText(n int) []session.Chunk {
	out := []session.Chunk{{Type: session.ChunkBlockStart, BlockType: session.BlockText}}
	var full strings.Builder
	for i := range n {
		piece := fmt.Sprintf("word%d ", i)
		full.WriteString(piece)
		out = append(out, session.Chunk{Type: session.ChunkTextDelta, Text: piece})
	}
	read := 512
	return append(out,
		session.Chunk{Type: session.ChunkBlockEnd, Block: &session.Block{Type: session.BlockText, Text: full.String()}},
		session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 900, OutputTokens: 70, CacheReadTokens: &read}},
		session.Chunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishStop}})
}

// benchTools is an answer of a short text and two tool calls whose
// arguments come in fragments, the first naming the call.
func benchTools() []session.Chunk {
	out := []session.Chunk{
		{Type: session.ChunkBlockStart, BlockType: session.BlockText},
		{Type: session.ChunkTextDelta, Text: "Looking "},
		{Type: session.ChunkTextDelta, Text: "both up."},
		{Type: session.ChunkBlockEnd, Block: &session.Block{Type: session.BlockText, Text: "Looking both up."}},
	}
	for i, key := range []string{"release", "nightly"} {
		idx, id := i+1, fmt.Sprintf("toolu_%d", i)
		args := []string{`{"key"`, `: "`, key, `"}`}
		out = append(out, session.Chunk{Type: session.ChunkBlockStart, Index: idx, BlockType: session.BlockToolCall})
		for j, a := range args {
			c := session.Chunk{Type: session.ChunkToolCallDelta, Index: idx, ArgumentsDelta: a}
			if j == 0 {
				c.ID, c.Name = id, "lookup"
			}
			out = append(out, c)
		}
		out = append(out, session.Chunk{Type: session.ChunkBlockEnd, Index: idx,
			Block: &session.Block{Type: session.BlockToolCall, ID: id, Name: "lookup", Arguments: strings.Join(args, "")}})
	}
	return append(out,
		session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 400, OutputTokens: 30}},
		session.Chunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishToolCalls}})
}

// BenchmarkServeStream measures writing one answer's events, without the
// network: a 46-delta text answer with usage, and a tool-call answer.
func BenchmarkServeStream(b *testing.B) {
	for _, bc := range []struct {
		name   string
		chunks []session.Chunk
	}{{"text46", benchText(46)}, {"tools", benchTools()}} {
		b.Run(bc.name, func(b *testing.B) {
			seq := slices.Values(bc.chunks)
			b.ReportAllocs()
			for b.Loop() {
				if err := ServeStream(io.Discard, func() {}, "msg_bench", "claude-sonnet-4-5", seq); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
