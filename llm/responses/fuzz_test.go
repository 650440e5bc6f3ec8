package responses

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

var streamSeeds = []string{
	"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"output\":[]}}\n\n" +
		"data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m\"}}\n\n" +
		"data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"hi\"}\n\n" +
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"id\":\"m\",\"content\":[{\"type\":\"output_text\",\"text\":\"hi!\"}]}}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}}\n\n",
	"data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"id\":\"f\",\"call_id\":\"c\",\"name\":\"n\"}}\n\n" +
		"data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"f\",\"delta\":\"{\"}\n\n" +
		"data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"call_id\":\"c\"}}\n\n" +
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"id\":\"f\",\"arguments\":\"{}\"}}\n\n" +
		"data: {\"type\":\"response.incomplete\",\"response\":{\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n",
	"data: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"a\",\"summary_index\":0}\n\n" +
		"data: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"b\",\"summary_index\":1}\n\n" +
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"reasoning\",\"summary\":[{\"text\":\"x\"}],\"encrypted_content\":\"e\"}}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"output\":[{\"type\":\"message\",\"content\":\"t\"}]}}\n\n",
	"data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"tool_search_call\",\"id\":\"t\",\"arguments\":{},\"execution\":\"server\"}}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"instructions\":[],\"output\":[null,{\"type\":\"web_search_call\",\"status\":{}},{\"Type\":\"message\",\"content\":\"t\"}]}}\n\n",
	"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"custom_tool_call\",\"name\":{},\"call_id\":\"c\"}}\n\n",
	"data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"m\"}}}\n\n",
	"event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n",
	"data: {\"type\":\"response.output_text.delta\",\"delta\":\"cut",
	"data: [DONE]\n\n",
	"data: {}\n\n",
}

// FuzzDecode checks that any response body yields a well-formed stream:
// blocks numbered in start order, deltas inside their open blocks,
// block-ends agreeing with their deltas, exactly one finish, last.
func FuzzDecode(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"type":"error","code":"invalid_api_key","message":"bad key ` + fuzzKey + `"}`,
		fuzzKey + " is no event",
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"custom_tool_call","call_id":"` + fuzzKey + `","name":"` + fuzzKey + `"}}`,
	} {
		f.Add([]byte("data: " + s + "\n\n"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var chunks []session.Chunk
		sc := live.NewScrubber(API, fuzzKey)
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
const fuzzKey = "sk-fuzz-secret"
