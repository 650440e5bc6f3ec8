package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// benchStream builds a realistic response body: a reasoning block, a text
// block and four parallel tool calls with interleaved argument fragments,
// in frames of OpenAI's envelope, then usage and [DONE]. It returns the
// body and its number of frames.
func benchStream(reasoning, text, fragments int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	frame := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"m",`+
			`"system_fingerprint":"fp","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`+"\n\n", delta, finish)
		n++
	}
	for i := range reasoning {
		frame(fmt.Sprintf(`{"reasoning_content":"step %d of the plan, "}`, i), "null")
	}
	for i := range text {
		frame(fmt.Sprintf(`{"content":"word%d "}`, i), "null")
	}
	for c := range 4 {
		frame(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"tool_%d","arguments":""}}]}`, c, c, c), "null")
	}
	for i := range fragments {
		frame(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"\"k%d\":\"v\","}}]}`, i%4, i), "null")
	}
	frame(`{}`, `"tool_calls"`)
	b.WriteString(`data: {"id":"chatcmpl-bench","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":700,` +
		`"prompt_tokens_details":{"cached_tokens":512},"completion_tokens_details":{"reasoning_tokens":200}}}` + "\n\ndata: [DONE]\n\n")
	return b.Bytes(), n + 1
}

// BenchmarkDecode measures SSE parsing plus chunk decoding of one response
// (about 1,000 frames), without the network.
func BenchmarkDecode(b *testing.B) {
	body, frames := benchStream(200, 400, 400)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var chunks int
	for b.Loop() {
		chunks = 0
		sc := live.NewScrubber("openai")
		live.DecodeStream(context.Background(), bytes.NewReader(body), newDecoder(sc), sc, func(c session.Chunk) bool {
			chunks++
			return true
		})
	}
	b.ReportMetric(float64(chunks), "chunks/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*frames), "ns/frame")
}

// BenchmarkStreamHTTP measures one whole call over loopback HTTP: request
// encoding, the POST, and decoding the same response body.
func BenchmarkStreamHTTP(b *testing.B) {
	body, _ := benchStream(200, 400, 400)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	defer srv.Close()
	d, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: "sk-bench", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}}}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		seq, err := d.Stream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		var fin session.Chunk
		for c := range seq {
			fin = c
		}
		if fin.Reason == nil || fin.Reason.Kind != session.FinishToolCalls {
			b.Fatalf("stream ended with %+v", fin)
		}
	}
}
