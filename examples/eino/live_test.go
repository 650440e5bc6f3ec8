package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// liveCall is one tool call of a scripted answer.
type liveCall struct{ id, name, args string }

// liveAnswer is one scripted answer: text, or tool calls.
type liveAnswer struct {
	text  string
	calls []liveCall
}

// criticAsks is the last message of the critic's first request: Eino ends
// the rewritten conversation with the transfer it made up.
const criticAsks = "user:For context: [folio] `transfer_to_agent` tool returned result: successfully transferred to agent [critic]."

// liveAnswers plays mixed/scout-and-critic the way a model would, keyed by
// the request's last message: a user message by its text, a tool result by
// the id of the call it answers.
var liveAnswers = map[string]liveAnswer{
	"user:Is Kindred in stock?": {calls: []liveCall{{"call_live_kindred", "catalog", `{"title":"Kindred"}`}}},
	"tool:call_live_kindred":    {text: "Kindred is out of stock; it is back on Monday."},
	"user:At the same time, send a scout to check Solaris and ask the critic whether waiting for Kindred is wise. Then sum up.": {calls: []liveCall{
		{"call_live_scout", "scout", `{"request":"Is Solaris in stock, and at what price?"}`},
		{"call_live_critic", "critic", `{"request":"Is waiting for Kindred wise?"}`},
	}},
	"user:Is Solaris in stock, and at what price?": {calls: []liveCall{{"call_live_solaris", "catalog", `{"title":"Solaris"}`}}},
	"tool:call_live_solaris":                       {text: "Solaris: 1 in stock, 9.90 EUR."},
	criticAsks:                                     {text: "Wise: Kindred is back on Monday, a short wait."},
	"tool:call_live_critic":                        {text: "Solaris is in stock at 9.90 EUR, and waiting for Kindred is wise."},
}

// together are the first requests of the two helpers of one answer: the
// endpoint answers neither until both have come, which only happens when
// Eino runs the two agent tools at once.
var together = []string{"user:Is Solaris in stock, and at what price?", criticAsks}

// liveModel is an OpenAI-compatible streaming endpoint scripted by
// liveAnswers. Sessions call it at the same time.
type liveModel struct {
	mu       sync.Mutex
	requests int
	models   map[string]bool // model names the agent sent
	temps    map[any]int     // temperatures the agent sent
	unknown  []string        // last messages it had no answer for
	waiting  int             // helpers' first requests that came
	both     chan struct{}   // closed when both have come
}

func newLiveModel() *liveModel {
	return &liveModel{models: map[string]bool{}, temps: map[any]int{}, both: make(chan struct{})}
}

// seen returns what the endpoint was asked so far.
func (m *liveModel) seen() (requests int, models map[string]bool, temps map[any]int, unknown []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests, maps.Clone(m.models), maps.Clone(m.temps), slices.Clone(m.unknown)
}

func (m *liveModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model       string `json:"model"`
		Temperature any    `json:"temperature"`
		Messages    []struct {
			Role       string  `json:"role"`
			Content    *string `json:"content"`
			ToolCallID string  `json:"tool_call_id"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !body.Stream || len(body.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	last := body.Messages[len(body.Messages)-1]
	key := "tool:" + last.ToolCallID
	if last.Role == "user" && last.Content != nil {
		key = "user:" + *last.Content
	}
	m.mu.Lock()
	m.requests++
	m.models[body.Model] = true
	m.temps[body.Temperature]++
	a, ok := liveAnswers[key]
	if !ok {
		m.unknown = append(m.unknown, key)
	}
	if slices.Contains(together, key) {
		if m.waiting++; m.waiting == len(together) {
			close(m.both)
		}
	}
	m.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted answer"}}`, http.StatusBadRequest)
		return
	}
	if slices.Contains(together, key) && !m.await(r.Context()) {
		http.Error(w, `{"error":{"message":"the other helper never called: the helpers did not run at once"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(frame string) {
		fmt.Fprintf(w, "data: %s\n\n", frame)
		w.(http.Flusher).Flush()
	}
	streamAnswer(send, a)
}

// await waits for both helpers' first requests. The bound only turns a
// sequential run into a failure instead of a hang.
func (m *liveModel) await(ctx context.Context) bool {
	bound := time.NewTimer(20 * time.Second)
	defer bound.Stop()
	select {
	case <-m.both:
		return true
	case <-ctx.Done():
	case <-bound.C:
	}
	return false
}

// streamAnswer sends a as chat.completion.chunk frames: text word by word,
// each tool call's arguments in two pieces, as a model streams them.
func streamAnswer(send func(string), a liveAnswer) {
	finish := "stop"
	if len(a.calls) > 0 {
		finish = "tool_calls"
	} else {
		send(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)
		for _, word := range strings.SplitAfter(a.text, " ") {
			p, _ := json.Marshal(word)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":%s}}]}`, p))
		}
	}
	for i, c := range a.calls {
		send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}}]}`, i, c.id, c.name))
		half := len(c.args) / 2
		for _, piece := range []string{c.args[:half], c.args[half:]} {
			p, _ := json.Marshal(piece)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, i, p))
		}
	}
	send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, finish))
	send(`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":90,"completion_tokens":12,"total_tokens":102}}`)
	send(`[DONE]`)
}

// copyScenario copies a fixture's scenario.json, and nothing else, into a
// fresh CATEGORY/NAME folder under a temporary folder.
func copyScenario(dir string) string {
	dst := filepath.Join(GinkgoT().TempDir(), harness.Name(dir))
	Expect(os.MkdirAll(dst, 0o755)).To(Succeed())
	b, err := os.ReadFile(filepath.Join(dir, scenario.File))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dst, scenario.File), b, 0o644)).To(Succeed())
	return dst
}

var _ = Describe("recording the desk live", func() {
	It("records against an OpenAI-compatible endpoint, the two helpers of one answer at once, then replays offline", func() {
		model := newLiveModel()
		server := httptest.NewServer(model)
		DeferCleanup(server.Close)
		const key = "sk-eino-0123456789abcdef"
		driver, err := openai.New(openai.Config{BaseURL: server.URL + "/v1", APIKey: key, Model: "fake-model"})
		Expect(err).NotTo(HaveOccurred())

		dir := copyScenario(mixed)
		ropts := recorder.LiveOptions(driver, server.URL+"/v1", "fake-model")
		ropts.Runtime = runtime
		ropts.Secrets = map[string]string{"OPENAI_API_KEY": key}
		res, err := recorder.Record(context.Background(), dir, ropts)
		Expect(err).NotTo(HaveOccurred())
		requests, models, temps, unknown := model.seen()
		Expect(unknown).To(BeEmpty())
		Expect(requests).To(Equal(7), "root 4, scout 2, critic 1")
		Expect(models).To(Equal(map[string]bool{"fake-model": true}), "the agent sends the recording's model")
		Expect(temps).To(Equal(map[any]int{0.2: 7}), "scenario.json's temperature reached the live model on every call")
		Expect(res.Sessions).To(Equal(3))

		By("replaying with the endpoint gone")
		server.Close()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal("eino"))
		Expect(fx.Scenario.Recorded.Provider).To(Equal("openai-compatible"))
		Expect(fx.Scenario.Recorded.Model).To(Equal("fake-model"))
		modes := map[string]session.Mode{}
		for _, l := range fx.Logs[1:] {
			modes[l.Header.ParentCallID] = l.Header.Mode
			if l.Header.Mode == session.ModeFork {
				Expect(l.Header.SeedLength).To(BeNumerically(">", 0), "the critic inherits turn 1")
			}
		}
		Expect(modes).To(Equal(map[string]session.Mode{"call_live_scout": session.ModeSpawn, "call_live_critic": session.ModeFork}))

		o, err := judge.Replay(context.Background(), fx, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(o.Transcript).To(ContainSubstring("fork of root via call_live_critic"))
		Expect(o.Transcript).To(ContainSubstring("result call_live_solaris (recorded): Solaris by Stanislaw Lem: 1 in stock, 9.90 EUR"), "the catalog, a recorded tool, recorded live in the scout's session")
		Expect(o.Transcript).To(ContainSubstring("assistant: Solaris is in stock at 9.90 EUR, and waiting for Kindred is wise."))
		requests, _, _, _ = model.seen()
		Expect(requests).To(Equal(7), "the replay made no request")

		for _, name := range res.Files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(key))
		}
	})
})
