package gemini

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

var streamSeeds = []string{
	"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"t\",\"thought\":true,\"thoughtSignature\":\"c2ln\"},{\"text\":\"a\"},{\"thoughtSignature\":\"eA==\"}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"b\":[1,{\"a\":null}]}}},{\"functionCall\":{\"id\":\"x\",\"name\":\"f\"}},{\"functionCall\":{\"id\":\"x\",\"name\":\"g\",\"args\":{}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":1,\"thoughtsTokenCount\":2}}\n\n",
	"data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n",
	"data: {\"error\":{\"code\":429,\"message\":\"slow\",\"status\":\"RESOURCE_EXHAUSTED\"}}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"MAX_TOKENS\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{}}]}}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"cut\"}]}}]}\n\ndata: {\"candi",
	"data: [DONE]\n\n",
}

// FuzzDecode checks that any answer body yields a well-formed stream:
// blocks numbered in start order, one open at a time, deltas inside them,
// block-ends agreeing with their deltas, tool calls with ids and object
// arguments, exactly one finish, last.
func FuzzDecode(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"error":{"code":400,"message":"API key not valid: ` + fuzzKey + `","status":"INVALID_ARGUMENT"}}`,
		fuzzKey + " is no chunk",
	} {
		f.Add([]byte("data: " + s + "\n\n"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var chunks []session.Chunk
		sc := live.NewScrubber("gemini", fuzzKey)
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

// fuzzKey is the API key FuzzDecode's decoder scrubs.
const fuzzKey = "AIza-fuzz-secret"
