package recorder_test

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a live Responses recording whose answers hold calls the server ran itself", func() {
	It("succeeds, the log holding the text answer and none of the server's calls", func() {
		search := `{"type":"tool_search_call","id":"ts_1","call_id":null,"arguments":{"query":"codeword"},"execution":"server","status":"completed"}`
		web := `{"type":"web_search_call","id":"ws_1","action":{"type":"search","query":"codeword","sources":[]},"status":"completed"}`
		msg := `{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"The codeword is MARMALADE.","annotations":[]}]}`
		base := streamingServer(sseData(
			`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"tool_search_call","id":"ts_1","call_id":null,"arguments":{},"execution":"server","status":"in_progress"}}`,
			`{"type":"response.output_item.done","output_index":0,"item":`+search+`}`,
			`{"type":"response.output_item.added","output_index":1,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress"}}`,
			`{"type":"response.output_item.done","output_index":1,"item":`+web+`}`,
			`{"type":"response.output_item.added","output_index":2,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}}`,
			`{"type":"response.output_text.delta","item_id":"msg_1","output_index":2,"content_index":0,"delta":"The codeword is MARMALADE."}`,
			`{"type":"response.output_item.done","output_index":2,"item":`+msg+`}`,
			`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[`+search+`,`+web+`,`+msg+`],`+
				`"usage":{"input_tokens":40,"output_tokens":6,"total_tokens":46}}}`))
		d, err := responses.New(live.Config{BaseURL: base, APIKey: liveKey, Model: "m", MaxRetries: -1,
			Sleep: func(context.Context, time.Duration) error { return nil }})
		Expect(err).NotTo(HaveOccurred())
		dir := scaffold("misc/server-items") // no category rule wants a child
		opts := recorder.LiveOptions(d, openai.RedactURL(base), "m")
		opts.Runtime, opts.By = agent.Reference, "agentsnap test"
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		root, err := os.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(root)).To(ContainSubstring(`"text":"The codeword is MARMALADE."`))
		Expect(string(root)).NotTo(ContainSubstring("ts_1"))
		Expect(string(root)).NotTo(ContainSubstring("ws_1"))
		Expect(replayPasses(dir).Transcript).To(ContainSubstring("assistant: The codeword is MARMALADE."))
	})
})
