package openai

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

var sseSeeds = []string{
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
	"data: a\r\n\r\ndata: b\r\rdata: c\n\n",
	": comment\nevent: x\nid: 1\ndata\ndata:x\n\n",
	"\xEF\xBB\xBFdata: bom\n\n",
	"data: cut mid-li",
	"data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n",
	"\r\r\n\n\r",
	"data: " + string(bytes.Repeat([]byte("x"), 300)) + "\n\n",
}

// FuzzDecode checks that any response body yields a well-formed stream:
// blocks numbered in start order, deltas inside their blocks, block-ends
// agreeing with their deltas, exactly one finish, last.
func FuzzDecode(f *testing.F) {
	for _, s := range sseSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"r\",\"content\":\"c\",\"tool_calls\":[" +
		"{\"index\":1,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}},{\"id\":\"b\",\"function\":{\"arguments\":\"}\"}}]}," +
		"\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":1}}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var chunks []session.Chunk
		sc := live.NewScrubber("openai", "sk-fuzz-secret")
		live.DecodeStream(context.Background(), bytes.NewReader(in), newDecoder(sc), sc, func(c session.Chunk) bool {
			chunks = append(chunks, c)
			return true
		})
		if err := CheckProtocol(chunks); err != nil {
			t.Fatalf("%v\nchunks: %+v", err, chunks)
		}
	})
}
