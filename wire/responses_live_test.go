package wire_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	rs "github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// respModel is a live Responses endpoint that answers the fork scenario
// the way forkPlaybook does — the spawn child's lookup with a reasoning
// item that carries encrypted content — and keeps every request body.
type respModel struct {
	mu     sync.Mutex
	bodies []map[string]json.RawMessage
}

func (m *respModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	var body map[string]json.RawMessage
	b, _ := io.ReadAll(r.Body)
	Expect(json.Unmarshal(b, &body)).To(Succeed())
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.mu.Unlock()
	var input []rs.Item
	Expect(json.Unmarshal(body["input"], &input)).To(Succeed())
	last := input[len(input)-1]
	var text string
	_ = json.Unmarshal(last.Content, &text)
	var out []string
	switch {
	case last.CallID == "call_l":
		out = []string{liveMessage("v2.4.1")}
	case last.CallID == "call_s":
		out = []string{liveMessage("MARMALADE, and release v2.4.1.")}
	case strings.HasPrefix(text, "Fork a child"):
		out = []string{liveCall("fc_live_f", "call_f", "subagent_fork", `{"prompt":"What is the codeword?"}`), liveCall("fc_live_s", "call_s", "subagent_spawn", `{"prompt":"Look up the release."}`)}
	case text == "What is the codeword?":
		out = []string{liveMessage("MARMALADE")}
	case text == "Look up the release.":
		out = []string{`{"type":"reasoning","id":"rs_live","summary":[{"type":"summary_text","text":"I should look it up."}],"encrypted_content":"RU5D-live"}`,
			liveCall("fc_live_l", "call_l", "lookup", `{"key":"release"}`)}
	default:
		out = []string{liveMessage("OK")}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_live\",\"output\":[]}}\n\n")
	for i, item := range out {
		fmt.Fprintf(w, "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":%d,\"item\":%s}\n\n", i, item)
		fmt.Fprintf(w, "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":%d,\"item\":%s}\n\n", i, item)
	}
	fmt.Fprintf(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_live\",\"status\":\"completed\",\"output\":[%s],\"usage\":{\"input_tokens\":9,\"output_tokens\":4,\"total_tokens\":13}}}\n\n", strings.Join(out, ","))
}

func liveMessage(text string) string {
	return fmt.Sprintf(`{"type":"message","id":"msg_live","status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, text)
}

func liveCall(id, callID, name, args string) string {
	return fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q,"arguments":%q,"status":"completed"}`, id, callID, name, args)
}

func (m *respModel) requests() []map[string]json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]json.RawMessage(nil), m.bodies...)
}

// respAimock is forkAimock with the spawn child's lookup reasoned.
var respAimock = strings.Replace(forkAimock,
	`"response": {"toolCalls": [{"id": "call_l"`, `"response": {"reasoning": "I should look it up.", "toolCalls": [{"id": "call_l"`, 1)

var _ = Describe("a live recording of a Responses agent through the wire layer", func() {
	It("sends the whole conversation with store false and the agent's settings as sent, a reasoning item back with its encrypted content, and replays offline", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		model := &respModel{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		drv, err := rs.New(rs.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		dir := newFixture("mixed/responses", forkScenario, forkPlaybook)
		opts := recorder.LiveOptions(drv, srv.URL, "live-model")
		rt := respRuntime(func(a *respAgent) { a.Temperature = 0.3 })
		opts.Runtime = rt
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		reqs := model.requests()
		Expect(reqs).To(HaveLen(6), "root 3, fork child 1, spawn child 2")
		sawReasoning := false
		for _, b := range reqs {
			Expect(b).To(HaveKeyWithValue("store", json.RawMessage(`false`)))
			Expect(b).To(HaveKeyWithValue("temperature", json.RawMessage(`0.3`)))
			Expect(b).NotTo(HaveKey("previous_response_id"), "agentsnap holds the chain")
			input := string(b["input"])
			Expect(input).NotTo(ContainSubstring(`"id":"fc_`), "output items go back without their ids")
			sawReasoning = sawReasoning || strings.Contains(input, `{"type":"reasoning","id":"rs_live","summary":[{"type":"summary_text","text":"I should look it up."}],"encrypted_content":"RU5D-live"}`)
		}
		Expect(sawReasoning).To(BeTrue(), "the spawn child's second request carries its reasoning back")

		fx := loadFixture(dir)
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header.ParentCallID).To(Equal("call_f"))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[2].Header.ParentCallID).To(Equal("call_s"))
		Expect(string(mustRead(filepath.Join(dir, "session.2.jsonl")))).To(ContainSubstring(`"meta":{"openai-responses":{"id":"rs_live","encrypted_content":"RU5D-live"}}`))
		Expect(replayWith(fx, harness.Options{Runtime: rt})).To(harness.MatchRecording())
	})
})

var _ = Describe("a live recording of a Responses agent through the wire layer against aimock, an independent server", func() {
	DescribeTable("records the agent's tree from OpenAI Responses and replays it offline",
		func(ctx SpecContext, change func(*respAgent)) {
			srv := startAimock(ctx, respAimock)
			drv, err := rs.New(rs.Config{BaseURL: srv.URL + "/v1", APIKey: "aimock-test-key"})
			Expect(err).NotTo(HaveOccurred())
			dir := newFixture("mixed/responses", forkScenario, forkPlaybook)
			opts := recorder.LiveOptions(drv, srv.URL, "gpt-4o")
			rt := respRuntime(change)
			opts.Runtime = rt
			_, err = recorder.Record(ctx, dir, opts)
			Expect(err).NotTo(HaveOccurred())

			fx := loadFixture(dir)
			Expect(fx.Logs).To(HaveLen(3))
			Expect(fx.Logs[1].Header).To(HaveField("ParentCallID", "call_f"))
			Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
			Expect(fx.Logs[2].Header).To(HaveField("ParentCallID", "call_s"))
			golden := string(mustRead(filepath.Join(dir, fixture.GoldenFile)))
			Expect(golden).To(ContainSubstring("assistant: MARMALADE, and release v2.4.1."))
			Expect(golden).To(ContainSubstring("thinking: I should look it up."))
			Expect(string(mustRead(filepath.Join(dir, "session.2.jsonl")))).To(ContainSubstring(`"encrypted_content":`), "aimock gives a store:false request's reasoning its encrypted content")
			Expect(replayWith(fx, harness.Options{Runtime: rt})).To(harness.MatchRecording())
		},
		Entry("chained by previous_response_id", NodeTimeout(2*time.Minute), chained),
		Entry("the conversation sent back as items", NodeTimeout(2*time.Minute), items),
	)
})
