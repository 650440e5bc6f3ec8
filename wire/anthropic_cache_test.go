package wire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// cacheMarks lists where a Messages request body has a cache_control:
// "system[0]", "tools[2]", "messages[3].content[1]", ….
func cacheMarks(body map[string]any) []string {
	var out []string
	list := func(v any) []any { l, _ := v.([]any); return l }
	marked := func(v any) bool { m, _ := v.(map[string]any); return m["cache_control"] != nil }
	for i, b := range list(body["system"]) {
		if marked(b) {
			out = append(out, fmt.Sprintf("system[%d]", i))
		}
	}
	for i, t := range list(body["tools"]) {
		if marked(t) {
			out = append(out, fmt.Sprintf("tools[%d]", i))
		}
	}
	for i, m := range list(body["messages"]) {
		msg, _ := m.(map[string]any)
		for j, b := range list(msg["content"]) {
			if marked(b) {
				out = append(out, fmt.Sprintf("messages[%d].content[%d]", i, j))
			}
		}
	}
	return out
}

// agentsMarks are the breakpoints the SDK agent with Cache sets in body:
// the system prompt, the last tool, and the last block of the last
// message.
func agentsMarks(body map[string]any) []string {
	msgs := body["messages"].([]any)
	blocks := 1 // a string is one text block
	if l, ok := msgs[len(msgs)-1].(map[string]any)["content"].([]any); ok {
		blocks = len(l)
	}
	return []string{"system[0]", fmt.Sprintf("tools[%d]", len(body["tools"].([]any))-1),
		fmt.Sprintf("messages[%d].content[%d]", len(msgs)-1, blocks-1)}
}

// capturingProxy forwards every request to target and keeps its body and
// headers: what reaches the live server.
type capturingProxy struct {
	proxy *httputil.ReverseProxy

	mu     sync.Mutex
	bodies []map[string]any
	header []http.Header
}

func newCapturingProxy(target string) *capturingProxy {
	u, err := url.Parse(target)
	Expect(err).NotTo(HaveOccurred())
	return &capturingProxy{proxy: httputil.NewSingleHostReverseProxy(u)}
}

func (p *capturingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	b, err := io.ReadAll(r.Body)
	Expect(err).NotTo(HaveOccurred())
	var body map[string]any
	Expect(json.Unmarshal(b, &body)).To(Succeed())
	p.mu.Lock()
	p.bodies, p.header = append(p.bodies, body), append(p.header, r.Header.Clone())
	p.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	p.proxy.ServeHTTP(w, r)
}

const twoTurns = `{"description": "two questions", "prompts": ["Say something.", "Say more."], "agent": {"system": "You are terse."}}`

var _ = Describe("a live recording of an agent that sets prompt cache breakpoints", func() {
	It("sends the live model each breakpoint where the agent put it, the one that moves on with the conversation too", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "Something." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/cached", twoTurns, `{"sessions":{"root":[{"text":"x"},{"text":"y"}]}}`)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = claudeRuntimeWith(func(a *claudeAgent) { a.Cache = true })
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		model.mu.Lock()
		defer model.mu.Unlock()
		Expect(model.bodies).To(HaveLen(2))
		for _, body := range model.bodies {
			Expect(cacheMarks(body)).To(Equal(agentsMarks(body)))
			Expect(body["system"]).To(Equal([]any{map[string]any{"type": "text", "text": "You are terse.", "cache_control": map[string]any{"type": "ephemeral"}}}))
		}
		Expect(cacheMarks(model.bodies[1])).To(ContainElement("messages[2].content[0]"), "turn 2's prompt")
	})

	It("records against aimock through the SDK, every breakpoint reaching it, and replays with or without breakpoints: they are not drift", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, claudeAimock)
		proxy := newCapturingProxy(srv.URL)
		front := httptest.NewServer(proxy)
		DeferCleanup(front.Close)
		dir := newFixture("mixed/claude", claudeScenario, claudePlaybook)
		drv, err := anthropic.New(anthropic.Config{BaseURL: front.URL, APIKey: "aimock-test-key-0123",
			Header: http.Header{"X-Aimock-Strict": {"true"}}})
		Expect(err).NotTo(HaveOccurred())
		cached := claudeRuntimeWith(func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048; a.Cache = true })
		opts := liveClaude(drv, front.URL)
		opts.Runtime = cached
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		proxy.mu.Lock()
		Expect(proxy.bodies).To(HaveLen(6), "every call of the tree")
		for _, body := range proxy.bodies {
			Expect(cacheMarks(body)).To(Equal(agentsMarks(body)))
		}
		proxy.mu.Unlock()

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(mustRead(dir + "/session.jsonl"))).NotTo(ContainSubstring("cache_control"))
		for _, agent := range []func(*claudeAgent){
			func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048; a.Cache = true },
			func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048 }, // as recorded before breakpoints reached the model
		} {
			o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(agent)})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		}
	})
})
