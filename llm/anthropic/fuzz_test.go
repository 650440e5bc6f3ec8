package anthropic

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

var streamSeeds = []string{
	"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2ln\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1}\"}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"ZA==\"}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"text\",\"text\":\"hi\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
	"data: {\"type\":\"content_block_delta\",\"index\":0}\n\n",
	"event: message_stop\ndata: {}\n\n",
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":-1,\"content_block\":{\"type\":\"text\"}}\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"}}\n\n",
	"data: cut mid-li",
}

// FuzzDecode checks that any answer body decodes to a well-formed stream
// (see CheckProtocol), and that what it decodes to, served again as the
// API's events, decodes to the same message: the wire layer hands an agent
// what the live side recorded.
func FuzzDecode(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`event: error` + "\n" + `data: {"type":"error","error":{"type":"authentication_error","message":"bad key ` + fuzzKey + `"}}`,
		`data: ` + fuzzKey + ` is no event`,
	} {
		f.Add([]byte(s + "\n\n"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		chunks := decodeAll(in)
		if err := CheckProtocol(chunks); err != nil {
			t.Fatalf("%v\nchunks: %+v", err, chunks)
		}
		if err := drivertest.Leaked(chunks, fuzzKey); err != nil {
			t.Fatal(err)
		}
		if fin := chunks[len(chunks)-1]; fin.Reason.Kind == session.FinishError || fin.Reason.Kind == session.FinishAborted {
			return
		}
		var served bytes.Buffer
		if err := ServeStream(&served, func() {}, "msg", "m", slices.Values(chunks)); err != nil {
			t.Fatal(err)
		}
		again := decodeAll(served.Bytes())
		if got, want := assembled(again), assembled(chunks); !equalMessages(got, want) {
			t.Fatalf("served again, the answer reads %+v, want %+v\nserved:\n%s", got, want, served.String())
		}
	})
}

// fuzzKey is the API key decodeAll's decoder scrubs.
const fuzzKey = "sk-ant-fuzz-secret"

func decodeAll(in []byte) []session.Chunk {
	var chunks []session.Chunk
	sc := live.NewScrubber("anthropic", fuzzKey)
	live.DecodeStream(context.Background(), bytes.NewReader(in), newDecoder(sc), sc, func(c session.Chunk) bool {
		chunks = append(chunks, c)
		return true
	})
	return chunks
}

func assembled(chunks []session.Chunk) session.Message {
	var a llm.Assembler
	for _, c := range chunks {
		a.Add(c)
	}
	return a.Message()
}

func equalMessages(a, b session.Message) bool {
	x, err1 := session.MarshalData(a)
	y, err2 := session.MarshalData(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
