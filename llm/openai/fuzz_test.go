package openai

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentsnap/agentsnap/internal/drivertest"
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

// fuzzKey is the API key FuzzDecode's decoder scrubs.
const fuzzKey = "sk-fuzz-secret"

// FuzzDecode checks that any response body yields a well-formed stream:
// blocks numbered in start order, deltas inside their blocks, block-ends
// agreeing with their deltas, exactly one finish, last; and that no
// failure message holds the key the decoder scrubs.
func FuzzDecode(f *testing.F) {
	for _, s := range sseSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"error":{"message":"bad key ` + fuzzKey + `","code":401}}`,
		fuzzKey + " is no chunk",
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"` + fuzzKey + `","type":"custom","custom":{"name":"` + fuzzKey + `"}}]}}]}`,
	} {
		f.Add([]byte("data: " + s + "\n\n"))
	}
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"r\",\"content\":\"c\",\"tool_calls\":[" +
		"{\"index\":1,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}},{\"id\":\"b\",\"function\":{\"arguments\":\"}\"}}]}," +
		"\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":1}}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var chunks []session.Chunk
		sc := live.NewScrubber("openai", fuzzKey)
		live.DecodeStream(context.Background(), bytes.NewReader(in), newDecoder(sc), sc, func(c session.Chunk) bool {
			chunks = append(chunks, c)
			return true
		})
		if err := CheckProtocol(chunks); err != nil {
			t.Fatalf("%v\nchunks: %+v", err, chunks)
		}
		if err := drivertest.Leaked(chunks, fuzzKey); err != nil {
			t.Fatal(err)
		}
	})
}
