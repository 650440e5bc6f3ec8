package wire_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// claudeAimock answers the Anthropic scenario as its playbook does, with
// thinking before every tool call (aimock, strict, refuses a tool-loop
// turn whose thinking lost its signature). aimock reads a user message's
// tool results after its text, so a request's last message is its last
// result; toolCallId matches come first, as aimock takes the first that
// matches.
const claudeAimock = `{"fixtures": [
  {"match": {"toolCallId": "toolu_n"}, "response": {"content": "v2.4.1; there is no nightly."}},
  {"match": {"toolCallId": "toolu_s"}, "response": {"content": "MARMALADE, and release v2.4.1."}},
  {"match": {"userMessage": "The codeword is MARMALADE. Reply OK."}, "response": {"content": "OK"}},
  {"match": {"userMessage": "Fork a child for the codeword and spawn one for the release, at once."}, "response": {
    "reasoning": "One child needs turn 1, the other does not.", "toolCalls": [
    {"id": "toolu_f", "name": "subagent_fork", "arguments": "{\"prompt\":\"What is the codeword?\"}"},
    {"id": "toolu_s", "name": "subagent_spawn", "arguments": "{\"prompt\":\"Look up the release and the nightly.\"}"}]}},
  {"match": {"userMessage": "What is the codeword?"}, "response": {"reasoning": "It was said in turn 1.", "content": "MARMALADE"}},
  {"match": {"userMessage": "Look up the release and the nightly."}, "response": {"reasoning": "Two lookups.", "toolCalls": [
    {"id": "toolu_l", "name": "lookup", "arguments": "{\"key\":\"release\"}"},
    {"id": "toolu_n", "name": "lookup", "arguments": "{\"key\":\"nightly\"}"}]}}
]}`

// liveClaude returns the options of a live recording through the
// Messages driver d at endpoint.
func liveClaude(d *anthropic.Driver, endpoint string) recorder.Options {
	opts := recorder.LiveOptions(d, endpoint, claudeModel)
	opts.Provider = "anthropic"
	return opts
}

var _ = Describe("a live recording of the Anthropic SDK agent against aimock, an independent server", func() {
	It("records the tree through the Messages driver, signatures handed back, and replays it offline", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, claudeAimock)
		dir := newFixture("mixed/claude", claudeScenario, claudePlaybook)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "aimock-test-key-0123",
			Header: http.Header{"X-Aimock-Strict": {"true"}}})
		Expect(err).NotTo(HaveOccurred())
		thinking := claudeRuntimeWith(func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048 })
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = thinking
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header).To(HaveField("ParentCallID", "toolu_f"))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[2].Header).To(HaveField("ParentCallID", "toolu_s"))
		golden := string(mustRead(filepath.Join(dir, fixture.GoldenFile)))
		Expect(golden).To(ContainSubstring("assistant: MARMALADE, and release v2.4.1."))
		Expect(golden).To(ContainSubstring("result toolu_n (error): no fact nightly"))
		Expect(string(mustRead(filepath.Join(dir, "session.jsonl")))).To(ContainSubstring(
			`{"type":"reasoning","text":"One child needs turn 1, the other does not.","meta":{"anthropic-messages":{"signature":"aimock-placeholder-signature"}}}`))
		for _, h := range headers(fx.Logs[0]) {
			Expect(string(h.Settings)).To(Equal(`{"max_tokens":2048,"thinking":{"budget_tokens":1024,"type":"enabled"}}`))
		}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: thinking})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})

// messagesModel is a live Messages endpoint of this test: it keeps every
// request body and answers each with text, saying what it is told to say.
type messagesModel struct {
	say func(body map[string]any) string

	mu     sync.Mutex
	bodies []map[string]any
	header []http.Header
}

func (m *messagesModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	Expect(json.Unmarshal(b, &body)).To(Succeed())
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.header = append(m.header, r.Header.Clone())
	m.mu.Unlock()
	Expect(r.URL.Path).To(Equal("/v1/messages"))
	w.Header().Set("Content-Type", "text/event-stream")
	text, _ := json.Marshal(m.say(body))
	fmt.Fprint(w, claudeSSE(
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(text)+`}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`,
		`{"type":"message_stop"}`))
}

func claudeSSE(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var typed struct{ Type string }
		Expect(json.Unmarshal([]byte(e), &typed)).To(Succeed())
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typed.Type, e)
	}
	return b.String()
}

const oneTurn = `{"description": "one question", "prompts": ["Say something."], "agent": {"system": "You are terse."}}`

var _ = Describe("a live recording through the Messages driver", func() {
	It("sends the agent's settings on as they are, with the key in x-api-key and anthropic-version", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "Something." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/one", oneTurn, `{"sessions":{"root":[{"text":"x"}]}}`)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = claudeRuntimeWith(func(a *claudeAgent) { a.MaxTokens = 777; a.StopSequences = []string{"END"}; a.Thinking = 1024 })
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		model.mu.Lock()
		defer model.mu.Unlock()
		Expect(model.bodies).NotTo(BeEmpty())
		body := model.bodies[len(model.bodies)-1]
		Expect(body).To(HaveKeyWithValue("max_tokens", 777.0))
		Expect(body).To(HaveKeyWithValue("stop_sequences", []any{"END"}))
		Expect(body).To(HaveKeyWithValue("thinking", map[string]any{"type": "enabled", "budget_tokens": 1024.0}))
		Expect(body).To(HaveKeyWithValue("system", "You are terse."))
		Expect(body).To(HaveKeyWithValue("stream", true))
		h := model.header[len(model.header)-1]
		Expect(h.Get("X-Api-Key")).To(Equal("sk-ant-live-key-0123456789"))
		Expect(h.Get("Anthropic-Version")).To(Equal("2023-06-01"))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("assistant: Something."))
	})

	It("refuses a recording in which the endpoint echoed a credential, and writes nothing", Label("secrets"), NodeTimeout(time.Minute), func(ctx SpecContext) {
		for who, leaked := range map[string]string{"the driver": "sk-ant-live-key-0123456789", "the agent": claudeAgentKey} {
			model := &messagesModel{say: func(map[string]any) string { return "Your key is " + leaked + "." }}
			srv := httptest.NewServer(model)
			DeferCleanup(srv.Close)
			dir := newFixture("custom/leak", oneTurn, `{"sessions":{"root":[{"text":"x"}]}}`)
			drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
			Expect(err).NotTo(HaveOccurred())
			opts := liveClaude(drv, srv.URL)
			opts.Runtime = claudeRuntime
			_, err = recorder.Record(ctx, dir, opts)
			Expect(err).To(MatchError(recorder.ErrSecret), "the key %s sent", who)
			Expect(filepath.Join(dir, "session.jsonl")).NotTo(BeAnExistingFile())
			Expect(os.ReadFile(filepath.Join(dir, scenario.File))).To(Equal([]byte(oneTurn)))
		}
	})
})
