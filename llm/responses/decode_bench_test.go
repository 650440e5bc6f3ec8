package responses

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// benchLiveStream builds a live answer's event stream as OpenAI sends it:
// a reasoning summary, a text message and four function calls, each
// streamed in deltas (reasoning, text and argument fragments split
// among the calls), then response.completed holding every item again. It
// returns the body and its number of events.
func benchLiveStream(reasoning, text, fragments int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	ev := func(typ, rest string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, n, rest)
		n++
	}
	var output []string
	ev(EventCreated, `"response":{"id":"resp_bench","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[],"usage":null}`)
	ev(EventItemAdded, `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`)
	var summary strings.Builder
	for i := range reasoning {
		d := fmt.Sprintf("step %d of the plan, ", i)
		summary.WriteString(d)
		ev(EventSummaryDelta, fmt.Sprintf(`"item_id":"rs_1","output_index":0,"summary_index":0,"delta":%q,"obfuscation":"k3J9a"`, d))
	}
	rs := fmt.Sprintf(`{"id":"rs_1","type":"reasoning","encrypted_content":"RU5DUllQVEVE","summary":[{"type":"summary_text","text":%q}]}`, summary.String())
	ev(EventItemDone, `"output_index":0,"item":`+rs)
	output = append(output, rs)
	ev(EventItemAdded, `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	var answer strings.Builder
	for i := range text {
		d := fmt.Sprintf("word%d ", i)
		answer.WriteString(d)
		ev(EventTextDelta, fmt.Sprintf(`"item_id":"msg_1","output_index":1,"content_index":0,"delta":%q,"logprobs":[],"obfuscation":"Qm9s"`, d))
	}
	msg := fmt.Sprintf(`{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":%q}],"role":"assistant"}`, answer.String())
	ev(EventItemDone, `"output_index":1,"item":`+msg)
	output = append(output, msg)
	args := make([]strings.Builder, 4)
	for c := range 4 {
		ev(EventItemAdded, fmt.Sprintf(`"output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%d","name":"tool_%d"}`, c+2, c, c, c))
	}
	for i := range fragments {
		d := fmt.Sprintf(`"k%d":"v",`, i)
		args[i%4].WriteString(d)
		ev(EventArgsDelta, fmt.Sprintf(`"item_id":"fc_%d","output_index":%d,"delta":%q,"obfuscation":"xY"`, i%4, i%4+2, d))
	}
	for c := range 4 {
		fc := fmt.Sprintf(`{"id":"fc_%d","type":"function_call","status":"completed","arguments":%q,"call_id":"call_%d","name":"tool_%d"}`, c, args[c].String(), c, c)
		ev(EventItemDone, fmt.Sprintf(`"output_index":%d,"item":%s`, c+2, fc))
		output = append(output, fc)
	}
	ev(EventCompleted, `"response":{"id":"resp_bench","object":"response","created_at":1,"status":"completed","error":null,"incomplete_details":null,`+
		`"instructions":"Be brief.","model":"gpt-5","output":[`+strings.Join(output, ",")+`],"parallel_tool_calls":true,"previous_response_id":null,`+
		`"reasoning":{"effort":"low","summary":"auto"},"store":false,"tools":[{"type":"function","name":"tool_0","description":"A tool.","parameters":{"type":"object"},"strict":true}],`+
		`"usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":512},"output_tokens":700,"output_tokens_details":{"reasoning_tokens":200},"total_tokens":1600}}`)
	return b.Bytes(), n
}

// BenchmarkLiveDecode measures SSE parsing plus event decoding of one live
// answer (about 1,000 events), without the network.
func BenchmarkLiveDecode(b *testing.B) {
	body, events := benchLiveStream(200, 400, 400)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var chunks int
	var fin session.Chunk
	for b.Loop() {
		chunks = 0
		sc := live.NewScrubber(API)
		live.DecodeStream(context.Background(), bytes.NewReader(body), newDecoder(sc), sc, func(c session.Chunk) bool {
			chunks++
			fin = c
			return true
		})
	}
	if fin.Reason == nil || fin.Reason.Kind != session.FinishToolCalls {
		b.Fatalf("the stream ended with %+v", fin)
	}
	b.ReportMetric(float64(chunks), "chunks/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}
