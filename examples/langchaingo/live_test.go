package langchaingo_test

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
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// liveModel is an OpenAI-compatible streaming endpoint that plays
// mixed/researcher-and-colleague the way a model would: it picks each
// answer from the request's last message — a user message by its text, a
// tool result by the id of the call it answers.
type liveModel struct {
	mu           sync.Mutex
	requests     int
	models       map[string]bool  // model names sent
	temperatures map[float64]bool // temperatures sent
	toolSets     map[string]bool  // the tool names of each request, joined
	unknown      []string         // last messages it had no answer for
}

// liveCall is one tool call of a scripted answer.
type liveCall struct{ id, name, input string }

// liveAnswer is one scripted answer: text, or tool calls.
type liveAnswer struct {
	text  string
	calls []liveCall
}

const (
	liveBurn  = "Billing allows a 0.5% error rate. By what factor does its current error rate exceed that?"
	liveDraft = "Draft a two-sentence status-page update for the incident we are tracking."
)

var liveAnswers = map[string]liveAnswer{
	"user:We are tracking incident INC-7 about billing. Is billing healthy?": {calls: []liveCall{{"call_live_billing", "service_status", "billing"}}},
	"tool:call_live_billing": {text: "Billing is degraded: p95 2400 ms, 1.8% errors."},
	"user:Have a researcher compute the billing error budget burn, and a colleague draft the status-page update for our incident.": {calls: []liveCall{
		{"call_live_burn", "ask_researcher", liveBurn},
		{"call_live_draft", "ask_colleague", liveDraft},
	}},
	"user:" + liveBurn:         {calls: []liveCall{{"call_live_r_billing", "service_status", "billing"}}},
	"tool:call_live_r_billing": {calls: []liveCall{{"call_live_r_factor", "calculator", "1.8 / 0.5"}}},
	"tool:call_live_r_factor":  {text: "3.6 times the allowed error rate."},
	"user:" + liveDraft:        {text: "INC-7: billing is slow and failing 1.8% of requests; we are investigating."},
	"tool:call_live_draft":     {text: "Budget burn 3.6x. Draft: INC-7: billing is slow and failing 1.8% of requests; we are investigating."},
}

// seen returns what the endpoint was asked so far.
func (m *liveModel) seen() (requests int, models, tools map[string]bool, temps map[float64]bool, unknown []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests, maps.Clone(m.models), maps.Clone(m.toolSets), maps.Clone(m.temperatures), slices.Clone(m.unknown)
}

func (m *liveModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model       string   `json:"model"`
		Temperature *float64 `json:"temperature"`
		Messages    []struct {
			Role       string  `json:"role"`
			Content    *string `json:"content"`
			ToolCallID string  `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
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
	var names []string
	for _, t := range body.Tools {
		names = append(names, t.Function.Name)
	}
	m.mu.Lock()
	m.requests++
	m.models[body.Model] = true
	m.toolSets[strings.Join(names, ",")] = true
	if body.Temperature != nil {
		m.temperatures[*body.Temperature] = true
	}
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
	streamAnswer(func(frame string) {
		fmt.Fprintf(w, "data: %s\n\n", frame)
		w.(http.Flusher).Flush()
	}, a)
}

// streamAnswer sends a as chat.completion.chunk frames: text word by word,
// each tool call's arguments ({"__arg1": input}, as langchaingo's
// OpenAIFunctionsAgent declares its tools) in two pieces.
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
		args, _ := json.Marshal(map[string]string{"__arg1": c.input})
		half := len(args) / 2
		for _, piece := range []string{string(args[:half]), string(args[half:])} {
			p, _ := json.Marshal(piece)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, i, p))
		}
	}
	send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, finish))
	send(`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":14,"total_tokens":134}}`)
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
	It("records against an OpenAI-compatible endpoint, a researcher and a colleague included, then replays offline", func() {
		model := &liveModel{models: map[string]bool{}, toolSets: map[string]bool{}, temperatures: map[float64]bool{}}
		server := httptest.NewServer(model)
		DeferCleanup(server.Close)
		const key = "sk-langchaingo-0123456789abcdef"
		driver, err := openai.New(openai.Config{BaseURL: server.URL + "/v1", APIKey: key, Model: "fake-model"})
		Expect(err).NotTo(HaveOccurred())

		dir := copyScenario(mixed)
		ropts := recorder.LiveOptions(driver, server.URL+"/v1", "fake-model")
		ropts.Runtime = runtime
		ropts.Secrets = map[string]string{"OPENAI_API_KEY": key}
		res, err := recorder.Record(context.Background(), dir, ropts)
		Expect(err).NotTo(HaveOccurred())
		requests, models, toolSets, temps, unknown := model.seen()
		Expect(unknown).To(BeEmpty())
		Expect(requests).To(Equal(8), "the desk 2 per turn, the researcher 3, the colleague 1")
		Expect(models).To(Equal(map[string]bool{"fake-model": true}), "the desk sends the recording's model")
		Expect(temps).To(Equal(map[float64]bool{0.2: true}), "the desk's chains.WithTemperature reaches the live model")
		Expect(toolSets).To(Equal(map[string]bool{
			"service_status,calculator,ask_researcher,ask_colleague": true,
			"service_status,calculator":                              true,
		}))
		Expect(res.Sessions).To(Equal(3))

		By("replaying with the endpoint gone")
		server.Close()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal("langchaingo-opsdesk"))
		Expect(fx.Scenario.Recorded.Provider).To(Equal("openai-compatible"))
		Expect(fx.Scenario.Recorded.Model).To(Equal("fake-model"))

		o, err := judge.Replay(context.Background(), fx, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(o).To(tree.Spawned("root", "call_live_burn"))
		Expect(o).To(tree.Forked("root", "call_live_draft"))
		Expect(o).To(tree.InheritsTurns("root/call_live_draft", 1))
		Expect(o.Transcript).To(ContainSubstring("result call_live_r_factor: 3.6"))
		Expect(o.Transcript).To(ContainSubstring("assistant: Budget burn 3.6x."))
		requests, _, _, _, _ = model.seen()
		Expect(requests).To(Equal(8), "the replay made no request")

		for _, name := range res.Files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(key))
		}
	})
})
