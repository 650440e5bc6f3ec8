package recorder_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// streamingServer answers every request with this event stream.
func streamingServer(stream string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	DeferCleanup(srv.Close)
	return srv.URL + "/v1"
}

// sseData is the event stream of these data lines.
func sseData(frames ...string) string {
	var b strings.Builder
	for _, f := range frames {
		fmt.Fprintf(&b, "data: %s\n\n", f)
	}
	return b.String()
}

// unrecordableAdvice ends the error of a live recording whose model called
// a tool a session log cannot record.
const unrecordableAdvice = "(the model called a tool a session log cannot record, whatever the network or the key: change the agent's tools as its message says, then record again)"

var _ = Describe("a live recording whose model calls a tool agentsnap cannot record", func() {
	DescribeTable("fails, naming the call, the tool and what to do, and leaves the fixture byte-identical",
		func(stream string, driver func(base string) llm.Driver, says string) {
			dir, before := recorded("fork/codeword")
			base := streamingServer(stream)
			opts := recorder.LiveOptions(driver(base), openai.RedactURL(base), "m")
			opts.Runtime, opts.By = agent.Reference, "agentsnap test"
			_, err := recorder.Record(context.Background(), dir, opts)
			Expect(err).To(MatchError(recorder.ErrRecording))
			Expect(err).To(MatchError(recorder.ErrLiveFailure))
			msg := err.Error()
			Expect(msg).To(ContainSubstring("session root turn 1 step 1: BAD_STREAM: " + says))
			Expect(msg).To(ContainSubstring("agentsnap records function calls only: give the agent that tool as a function tool"))
			Expect(msg).To(ContainSubstring("nothing was saved, the fixture is unchanged"))
			By("advising what fixes it, not the network, the key or keeping it")
			Expect(msg).To(ContainSubstring(unrecordableAdvice))
			Expect(msg).NotTo(ContainSubstring("network, the key, the model name"))
			Expect(msg).NotTo(ContainSubstring("--keep-live-failures"))
			Expect(tree(dir)).To(Equal(before))
		},
		Entry("Chat Completions: a custom tool's call", sseData(
			`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_c1","type":"custom","custom":{"name":"apply_diff","input":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"custom":{"input":"--- a/x"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`),
			func(base string) llm.Driver {
				d, err := openai.New(openai.Config{BaseURL: base, APIKey: liveKey, Model: "m", MaxRetries: -1})
				Expect(err).NotTo(HaveOccurred())
				return d
			},
			`openai: stream frame 1: the model called "apply_diff", a tool of type "custom" (call "call_c1")`),
		Entry("Responses: a custom_tool_call item", sseData(
			`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_c1","name":"apply_diff","input":"","status":"in_progress"}}`,
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_c1","name":"apply_diff","input":"--- a/x","status":"completed"}}`,
			`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"type":"custom_tool_call","id":"ctc_1","call_id":"call_c1","name":"apply_diff","input":"--- a/x","status":"completed"}]}}`),
			func(base string) llm.Driver {
				d, err := responses.New(live.Config{BaseURL: base, APIKey: liveKey, Model: "m", MaxRetries: -1,
					Sleep: func(context.Context, time.Duration) error { return nil }})
				Expect(err).NotTo(HaveOccurred())
				return d
			},
			`openai-responses: stream event 2: the model called "apply_diff", a custom tool (call "call_c1", output item of type "custom_tool_call")`),
	)
})

var _ = Describe("a live recording failed by an unrecordable call and by a failure outside the model", func() {
	It("advises on each: the network, the key and keeping it for the one, the agent's tools for the other", func() {
		unrecordable := live.UnrecordableFinish(live.Scrubber{}, "openai: stream frame 1: the model called a tool of type \"custom\"", "give the agent that tool as a function tool")
		msg := recorder.LiveFailed(unrecordable, session.ErrorFinish(live.CodeTransport, "the connection closed")).Error()
		Expect(msg).To(HaveSuffix("(a failure of the network, the key, the model name or the server is not agent behaviour; " +
			"to keep such failures in the fixture on purpose, record with --keep-live-failures, or from your tests (-record) with AGENTSNAP_KEEP_LIVE_FAILURES=1)\n" +
			unrecordableAdvice))
		Expect(msg).To(ContainSubstring("session root turn 1 step 1: BAD_STREAM: openai: stream frame 1: the model called a tool of type \"custom\"; agentsnap records function calls only: give the agent that tool as a function tool"))
		Expect(msg).To(ContainSubstring("session root turn 1 step 2: TRANSPORT: the connection closed"))
	})

	It("advises only on the network, the key and keeping it for a broken stream that is no unrecordable call", func() {
		msg := recorder.LiveFailed(session.ErrorFinish(live.CodeBadStream, "openai: stream frame 1 is not a chunk object")).Error()
		Expect(msg).To(ContainSubstring("--keep-live-failures"))
		Expect(msg).NotTo(ContainSubstring(unrecordableAdvice))
	})
})
