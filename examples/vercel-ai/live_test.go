package vercelai_test

import (
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

// liveAnswers plays parallel/compare-releases the way a model would, keyed
// by the request's last message: a user message by its text, a tool result
// by the id of the call it answers.
var liveAnswers = map[string]liveAnswer{
	"user:Compare v2.4 and v2.5 in two sentences.": {calls: []liveCall{
		{"call_live_24", "research", `{"question":"What shipped in v2.4?"}`},
		{"call_live_25", "research", `{"question":"What shipped in v2.5?"}`},
	}},
	"user:What shipped in v2.4?":                                {calls: []liveCall{{"call_live_notes_24", "release_notes", `{"version":"v2.4"}`}}},
	"tool:call_live_notes_24":                                   {text: "v2.4 added SSO login and audit log export."},
	"user:What shipped in v2.5?":                                {calls: []liveCall{{"call_live_notes_25", "release_notes", `{"version":"v2.5"}`}}},
	"tool:call_live_notes_25":                                   {text: "v2.5 added offline mode and faster sync, and dropped the v1 API."},
	"tool:call_live_25":                                         {text: "v2.4 brought SSO and audit export; v2.5 brings offline mode and drops the v1 API."},
	"user:For the changelog, in one line: what does v2.5 drop?": {text: "The v1 API."},
}

// liveModel is an OpenAI-compatible streaming endpoint that answers from
// liveAnswers. Sessions call it at the same time.
type liveModel struct {
	mu       sync.Mutex
	requests int
	models   map[string]bool // model names it was asked for
	auth     map[string]bool // Authorization headers it got
	unknown  []string        // last messages it had no answer for
}

func (m *liveModel) seen() (requests int, models, auth map[string]bool, unknown []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests, maps.Clone(m.models), maps.Clone(m.auth), slices.Clone(m.unknown)
}

func (m *liveModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !body.Stream || len(body.Messages) == 0 || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	last := body.Messages[len(body.Messages)-1]
	key := "tool:" + last.ToolCallID
	if last.Role == "user" {
		var text string
		_ = json.Unmarshal(last.Content, &text)
		key = "user:" + text
	}
	m.mu.Lock()
	m.requests++
	m.models[body.Model] = true
	m.auth[r.Header.Get("Authorization")] = true
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

var _ = Describe("recording the Vercel AI SDK agent live", Label("node"), func() {
	BeforeEach(requireNode)

	It("records against a local OpenAI-compatible server through serve --live, the researchers at once, then replays offline", func(ctx SpecContext) {
		model := &liveModel{models: map[string]bool{}, auth: map[string]bool{}}
		server := httptest.NewServer(model)
		DeferCleanup(server.Close)
		const key = "sk-vercel-ai-0123456789abcdef"
		dir := copyFixture(parallel, scenario.File)
		live := environ([]string{"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "AGENTSNAP_BASE_URL", "AGENTSNAP_MODEL"}, "AGENTSNAP_API_KEY="+key)

		code, verdict := run(ctx, live, dir, dir, "--record", "--live", "--base-url", server.URL+"/v1", "--model", "fake-model")
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(ContainSubstring("recorded " + dir + ": 3 sessions, 7 model calls"))
		requests, models, auth, unknown := model.seen()
		Expect(unknown).To(BeEmpty())
		Expect(requests).To(Equal(7), "root 3 (research, answer, turn 2), each researcher 2")
		Expect(models).To(Equal(map[string]bool{"fake-model": true}), "serve sends every call to --model")
		Expect(auth).To(Equal(map[string]bool{"Bearer " + key: true}), "serve's key, not the agent's")

		By("replaying with the server gone")
		server.Close()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal(runtimeName))
		Expect(fx.Scenario.Recorded.Provider).To(Equal("live"), "serve calls each request in the API the agent speaks")
		Expect(fx.Scenario.Recorded.Model).To(Equal("fake-model"))
		calls := map[string]session.Mode{}
		for _, l := range fx.Logs[1:] {
			calls[l.Header.ParentCallID] = l.Header.Mode
		}
		Expect(calls).To(Equal(map[string]session.Mode{"call_live_24": session.ModeSpawn, "call_live_25": session.ModeSpawn}))
		golden, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(ContainSubstring("result call_live_notes_25: v2.5 (June): offline mode, 30% faster sync, drops the legacy v1 API."))
		Expect(string(golden)).To(ContainSubstring("assistant: v2.4 brought SSO and audit export; v2.5 brings offline mode and drops the v1 API."))

		code, verdict = run(ctx, nil, dir, dir)
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(MatchRegexp(verdictOK(dir)))
		requests, _, _, _ = model.seen()
		Expect(requests).To(Equal(7), "the replay made no request")

		ents, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(key), e.Name())
		}
	}, SpecTimeout(2*time.Minute))
})
