package wire_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// geminiModelServer is a live Gemini endpoint for the fork scenario that
// answers as the Gemini API does: function calls without ids, thought
// signatures on parts, STOP after function calls. It keeps every request
// body it got.
type geminiModelServer struct {
	mu     sync.Mutex
	bodies []map[string]any
	paths  []string
}

func (m *geminiModelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.paths = append(m.paths, r.URL.String())
	m.mu.Unlock()
	contents := body["contents"].([]any)
	parts := contents[len(contents)-1].(map[string]any)["parts"].([]any)
	last := parts[len(parts)-1].(map[string]any)
	text, _ := last["text"].(string)
	var answer []string
	if fr, ok := last["functionResponse"].(map[string]any); ok {
		text = "result of " + fr["name"].(string)
	}
	switch text {
	case "The codeword is MARMALADE. Reply OK.":
		answer = []string{`{"text":"O"}`, `{"text":"K","thoughtSignature":"c2lnLW9r"}`}
	case "Fork a child for the codeword and spawn one for the release, at once.":
		answer = []string{`{"functionCall":{"name":"subagent_fork","args":{"prompt":"What is the codeword?"}},"thoughtSignature":"c2lnLWZvcms="},{"functionCall":{"name":"subagent_spawn","args":{"prompt":"Look up the release."}}}`}
	case "What is the codeword?":
		answer = []string{`{"text":"It was said in turn 1.","thought":true}`, `{"text":"MARMALADE"}`}
	case "Look up the release.":
		answer = []string{`{"functionCall":{"name":"lookup","args":{"key":"release"}}}`}
	case "result of lookup":
		answer = []string{`{"text":"v2.4.1"}`}
	default:
		answer = []string{`{"text":"MARMALADE, and release v2.4.1."}`}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i, p := range answer {
		finish := ""
		if i == len(answer)-1 {
			finish = `,"finishReason":"STOP"`
		}
		fmt.Fprintf(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[%s]}%s,\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":%d,\"totalTokenCount\":%d}}\n\n", p, finish, i+1, 11+i)
	}
}

// modelTurn returns the parts of the model content before the last
// content of a request body, or nil.
func modelTurn(body map[string]any) []any {
	contents := body["contents"].([]any)
	if len(contents) < 2 {
		return nil
	}
	return contents[len(contents)-2].(map[string]any)["parts"].([]any)
}

var _ = Describe("a live recording of the genai agent through the wire layer", func() {
	It("names calls the API sent without ids so children name them, sends the agent's thought signatures and settings on, and replays offline", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		warm := func(a *genaiAgent) { a.Temperature = 0.25 }
		dir, model := recordGenaiLive(ctx, warm)

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header).To(HaveField("ParentCallID", "call_2_1_0"))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[2].Header).To(HaveField("ParentCallID", "call_2_1_1"))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring(`    call call_2_1_0 subagent_fork {"prompt":"What is the codeword?"}
    call call_2_1_1 subagent_spawn {"prompt":"Look up the release."}
    result call_2_1_0: MARMALADE
    result call_2_1_1: v2.4.1
  step 2
    assistant: MARMALADE, and release v2.4.1.`))

		model.mu.Lock()
		bodies, paths := model.bodies, model.paths
		model.mu.Unlock()
		Expect(bodies).To(HaveLen(6))
		for i, b := range bodies {
			Expect(paths[i]).To(Equal("/v1beta/models/gemini-agent-model:streamGenerateContent?alt=sse"), "the model the agent asked for")
			Expect(b).To(HaveKeyWithValue("generationConfig", map[string]any{"temperature": 0.25}), "the agent's setting reached the live model")
		}
		var afterTools, turn2 map[string]any
		for _, b := range bodies {
			for _, p := range modelTurn(b) {
				if fc, ok := p.(map[string]any)["functionCall"].(map[string]any); ok && fc["name"] == "subagent_fork" {
					afterTools = b
				}
				if p.(map[string]any)["text"] == "OK" && len(b["contents"].([]any)) == 3 {
					turn2 = b
				}
			}
		}
		Expect(afterTools).NotTo(BeNil())
		Expect(modelTurn(afterTools)).To(Equal([]any{
			map[string]any{"functionCall": map[string]any{"id": "call_2_1_0", "name": "subagent_fork", "args": map[string]any{"prompt": "What is the codeword?"}}, "thoughtSignature": "c2lnLWZvcms="},
			map[string]any{"functionCall": map[string]any{"id": "call_2_1_1", "name": "subagent_spawn", "args": map[string]any{"prompt": "Look up the release."}}},
		}), "the signature goes back on its call")
		last := afterTools["contents"].([]any)[len(afterTools["contents"].([]any))-1].(map[string]any)
		Expect(last["parts"]).To(Equal([]any{
			map[string]any{"functionResponse": map[string]any{"id": "call_2_1_0", "name": "subagent_fork", "response": map[string]any{"output": "MARMALADE"}}},
			map[string]any{"functionResponse": map[string]any{"id": "call_2_1_1", "name": "subagent_spawn", "response": map[string]any{"output": "v2.4.1"}}},
		}))
		Expect(turn2).NotTo(BeNil())
		Expect(modelTurn(turn2)).To(Equal([]any{map[string]any{"text": "OK", "thoughtSignature": "c2lnLW9r"}}), "the streamed text joined, its signature on it")

		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: genaiRuntime(warm)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(judge.CompareGolden(o).Message).To(BeEmpty())
		Expect(strings.Count(string(mustRead(filepath.Join(dir, "session.jsonl"))), `"settings":{"generationConfig":{"temperature":0.25}}`)).To(Equal(3), "the setting is recorded on every root call")
	})
})

// geminiAimock answers the fork scenario the way forkPlaybook does
// (aimock takes the first fixture that matches: the toolCallId ones
// first).
const geminiAimock = `{"fixtures": [
  {"match": {"toolCallId": "call_l"}, "response": {"content": "v2.4.1"}},
  {"match": {"toolCallId": "call_s"}, "response": {"content": "MARMALADE, and release v2.4.1."}},
  {"match": {"userMessage": "The codeword is MARMALADE. Reply OK."}, "response": {"content": "OK"}},
  {"match": {"userMessage": "Fork a child for the codeword and spawn one for the release, at once."}, "response": {"toolCalls": [
    {"id": "call_f", "name": "subagent_fork", "arguments": "{\"prompt\":\"What is the codeword?\"}"},
    {"id": "call_s", "name": "subagent_spawn", "arguments": "{\"prompt\":\"Look up the release.\"}"}]}},
  {"match": {"userMessage": "What is the codeword?"}, "response": {"content": "MARMALADE", "reasoning": "It was said in turn 1."}},
  {"match": {"userMessage": "Look up the release."}, "response": {"toolCalls": [{"id": "call_l", "name": "lookup", "arguments": "{\"key\":\"release\"}"}]}}
]}`

var _ = Describe("a live recording through the wire layer against aimock's Gemini API, an independent server", func() {
	It("records the genai agent's tree and replays it offline", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, geminiAimock)
		dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
		drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "aimock-test-key"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gemini-2.5-flash")
		opts.Provider = gemini.API
		opts.Runtime = genaiStreamed
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header).To(HaveField("ParentCallID", "call_f"))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[2].Header).To(HaveField("ParentCallID", "call_s"))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(forkGolden))
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: genaiStreamed})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})
