package sdkagent_test

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

// liveModel is an OpenAI-compatible streaming endpoint that plays
// mixed/spawn-and-fork the way a model would: it picks each answer from
// the request's last message — a user message by its text, a tool result
// by the id of the call it answers. Sessions call it at the same time.
type liveModel struct {
	mu       sync.Mutex
	requests int
	models   map[string]bool // model names the agent sent
	unknown  []string        // last messages it had no answer for
}

// liveCall is one tool call of a scripted answer.
type liveCall struct{ id, name, args string }

// liveAnswer is one scripted answer: text, or tool calls.
type liveAnswer struct {
	text  string
	calls []liveCall
}

var liveAnswers = map[string]liveAnswer{
	"user:We fly to Zurich on Friday, three of us, with a budget of 1200 EUR. Reply OK.": {text: "OK, noted."},
	"user:At the same time, spawn a helper for the weather in Zurich and fork a helper to split the budget from this conversation among us. Then sum up.": {calls: []liveCall{
		{"call_live_zurich", "subagent_spawn", `{"prompt":"Weather in Zurich, please."}`},
		{"call_live_split", "subagent_fork", `{"prompt":"Split our budget three ways."}`},
	}},
	"user:Weather in Zurich, please.":   {calls: []liveCall{{"call_live_weather", "weather", `{"city":"Zurich"}`}}},
	"tool:call_live_weather":            {text: "Cloudy, 12°C in Zurich."},
	"user:Split our budget three ways.": {calls: []liveCall{{"call_live_calc", "calculator", `{"expression":"1200 / 3"}`}}},
	"tool:call_live_calc":               {text: "400 EUR per person."},
	"tool:call_live_split":              {text: "Zurich: cloudy, 12°C. Budget: 400 EUR each."},
}

// seen returns what the endpoint was asked so far.
func (m *liveModel) seen() (requests int, models map[string]bool, unknown []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests, maps.Clone(m.models), slices.Clone(m.unknown)
}

func (m *liveModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
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
	a, ok := liveAnswers[key]
	if !ok {
		m.unknown = append(m.unknown, key)
	}
	m.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted answer"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(frame string) {
		fmt.Fprintf(w, "data: %s\n\n", frame)
		w.(http.Flusher).Flush()
	}
	streamAnswer(send, a)
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

var _ = Describe("recording sdkagent live", func() {
	It("records against an OpenAI-compatible endpoint, children at once, then replays offline", func() {
		model := &liveModel{models: map[string]bool{}}
		server := httptest.NewServer(model)
		DeferCleanup(server.Close)
		const key = "sk-sdkagent-0123456789abcdef"
		driver, err := openai.New(openai.Config{BaseURL: server.URL + "/v1", APIKey: key, Model: "fake-model"})
		Expect(err).NotTo(HaveOccurred())

		dir := copyScenario(mixed)
		ropts := recorder.LiveOptions(driver, server.URL+"/v1", "fake-model")
		ropts.Runtime = runtime
		ropts.Secrets = map[string]string{"OPENAI_API_KEY": key}
		res, err := recorder.Record(context.Background(), dir, ropts)
		Expect(err).NotTo(HaveOccurred())
		requests, models, unknown := model.seen()
		Expect(unknown).To(BeEmpty())
		Expect(requests).To(Equal(7), "root 3, each child 2")
		Expect(models).To(Equal(map[string]bool{"fake-model": true}), "the agent sends the recording's model")
		Expect(res.Sessions).To(Equal(3))

		By("replaying with the endpoint gone")
		server.Close()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal("sdkagent"))
		Expect(fx.Scenario.Recorded.Provider).To(Equal("openai-compatible"))
		Expect(fx.Scenario.Recorded.Model).To(Equal("fake-model"))
		modes := map[string]session.Mode{}
		for _, l := range fx.Logs[1:] {
			modes[l.Header.ParentCallID] = l.Header.Mode
			if l.Header.Mode == session.ModeFork {
				Expect(l.Header.SeedLength).To(BeNumerically(">", 0), "the fork inherits turn 1")
			}
		}
		Expect(modes).To(Equal(map[string]session.Mode{"call_live_zurich": session.ModeSpawn, "call_live_split": session.ModeFork}))

		o, err := judge.Replay(context.Background(), fx, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(o.Transcript).To(ContainSubstring("via call_live_split"))
		Expect(o.Transcript).To(ContainSubstring("result call_live_calc: 400"))
		Expect(o.Transcript).To(ContainSubstring("assistant: Zurich: cloudy, 12°C. Budget: 400 EUR each."))
		requests, _, _ = model.seen()
		Expect(requests).To(Equal(7), "the replay made no request")

		for _, name := range res.Files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(key))
		}
	})
})
