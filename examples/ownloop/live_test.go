package ownloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/examples/ownloop"
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
// fork/budget-recall the way a model would: it picks each answer from the
// request's last message — a user message by its text, a tool result by the
// id of the call it answers.
type liveModel struct {
	mu       sync.Mutex
	requests int
	unknown  []string // last messages it had no answer for
}

// answer is one scripted reply: text, or one tool call.
type answer struct {
	text               string
	callID, name, args string
}

var liveAnswers = map[string]answer{
	"user:Our travel budget is 2000 EUR. Convert it to USD.": {callID: "call_live_usd", name: "convert", args: `{"amount":2000,"from":"EUR","to":"USD"}`},
	"tool:call_live_usd": {text: "2000 EUR is 2200.00 USD."},
	"user:Fork a helper to convert the budget from this conversation to GBP, then tell me both figures.": {callID: "call_live_gbp", name: "subagent_fork", args: `{"task":"Convert the budget we discussed to GBP."}`},
	"user:Convert the budget we discussed to GBP.":                                                       {callID: "call_live_gbp_convert", name: "convert", args: `{"amount":2000,"from":"EUR","to":"GBP"}`},
	"tool:call_live_gbp_convert":                                                                         {text: "2000.00 EUR = 1760.00 GBP"},
	"tool:call_live_gbp":                                                                                 {text: "The budget is 2200.00 USD, or 1760.00 GBP."},
}

func (m *liveModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
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
	finish := "stop"
	if a.callID != "" {
		finish = "tool_calls"
		name, _ := json.Marshal(a.name)
		send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%s,"arguments":""}}]}}]}`, a.callID, name))
		// Arguments arrive in two pieces, as a model streams them.
		half := len(a.args) / 2
		for _, piece := range []string{a.args[:half], a.args[half:]} {
			p, _ := json.Marshal(piece)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}}]}`, p))
		}
	} else {
		send(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)
		for _, word := range strings.SplitAfter(a.text, " ") {
			p, _ := json.Marshal(word)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":%s}}]}`, p))
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

var _ = Describe("recording ownloop live", func() {
	It("records against an OpenAI-compatible endpoint, then replays offline", func() {
		model := &liveModel{}
		server := httptest.NewServer(model)
		DeferCleanup(server.Close)
		const key = "sk-ownloop-0123456789abcdef"
		driver, err := openai.New(openai.Config{BaseURL: server.URL + "/v1", APIKey: key, Model: "fake-model"})
		Expect(err).NotTo(HaveOccurred())

		dir := copyScenario(filepath.Join(root, "fork", "budget-recall"))
		opts := recorder.LiveOptions(driver, server.URL+"/v1", "fake-model")
		opts.Runtime = ownloop.Runtime{}
		opts.Secrets = map[string]string{"OPENAI_API_KEY": key}
		res, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(model.unknown).To(BeEmpty())
		Expect(model.requests).To(Equal(6))
		Expect(res.Sessions).To(Equal(2))

		By("replaying with the endpoint gone")
		server.Close()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal(ownloop.Name))
		Expect(fx.Scenario.Recorded.Provider).To(Equal("openai-compatible"))
		Expect(fx.Logs).To(HaveLen(2))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[1].Header.SeedLength).To(BeNumerically(">", 0))

		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: ownloop.Runtime{}})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(o.Transcript).To(ContainSubstring("== session 1: fork of root via call_live_gbp, depth 1 =="))
		Expect(o.Transcript).To(ContainSubstring("assistant: The budget is 2200.00 USD, or 1760.00 GBP."))
		Expect(model.requests).To(Equal(6), "the replay made no request")

		for _, name := range res.Files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(key))
		}
	})
})
