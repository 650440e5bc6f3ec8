package wire_test

import (
	"context"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"
)

// recordGenaiLive records the genai agent, changed by change, live through
// the wire layer against a Gemini test server for the fork scenario, and
// returns the fixture's folder and the server, which holds every body the
// live model got.
func recordGenaiLive(ctx context.Context, change func(*genaiAgent)) (string, *geminiModelServer) {
	GinkgoHelper()
	model := &geminiModelServer{}
	srv := httptest.NewServer(model)
	DeferCleanup(srv.Close)
	dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
	drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "test-key-not-secret"})
	Expect(err).NotTo(HaveOccurred())
	opts := recorder.LiveOptions(drv, srv.URL, "gemini-2.5-flash")
	opts.Provider = gemini.API
	opts.Runtime = genaiRuntime(change)
	_, err = recorder.Record(ctx, dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return dir, model
}

// replayGenaiCtx replays dir with the genai agent changed by change.
func replayGenaiCtx(ctx context.Context, dir string, change func(*genaiAgent)) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(ctx, fx, harness.Options{Runtime: genaiRuntime(change)})
	Expect(err).NotTo(HaveOccurred())
	return o
}

// firstHeader returns the first request/header of the fixture's root log.
func firstHeader(dir string) session.RequestHeaderData {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range fx.Logs[0].Events {
		if e.Type == session.TypeRequestHeader {
			var h session.RequestHeaderData
			Expect(e.Decode(&h)).To(Succeed())
			return h
		}
	}
	Fail("the root log of " + dir + " has no request/header")
	return session.RequestHeaderData{}
}

var _ = Describe("genai's function declarations with OpenAPI parameters, recorded live through the wire layer", func() {
	openAPI := func(a *genaiAgent) { a.OpenAPI = true }

	It("reach the live model as the agent sent them (parameters, not a converted parametersJsonSchema), digest as the same JSON Schema, and replay", func(ctx SpecContext) {
		dir, model := recordGenaiLive(ctx, openAPI)
		model.mu.Lock()
		bodies := model.bodies
		model.mu.Unlock()
		Expect(bodies).NotTo(BeEmpty())
		for _, b := range bodies {
			decls := b["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
			Expect(decls).To(HaveLen(3))
			for _, d := range decls {
				Expect(d).To(HaveKey("parameters"))
				Expect(d).NotTo(HaveKey("parametersJsonSchema"))
			}
			Expect(decls[0].(map[string]any)["parameters"]).To(Equal(map[string]any{
				"type": "OBJECT", "properties": map[string]any{"key": map[string]any{"type": "STRING"}}, "required": []any{"key"},
			}), "genai's Schema as it sent it")
		}

		jsonSchemaDir, _ := recordGenaiLive(ctx, func(*genaiAgent) {})
		h, js := firstHeader(dir), firstHeader(jsonSchemaDir)
		Expect(h.ToolsDigest).To(Equal(js.ToolsDigest), "the parameters digest as the JSON Schema they convert to")
		Expect(h.ToolDigests).To(Equal(js.ToolDigests))

		Expect(replayGenaiCtx(ctx, dir, openAPI)).To(harness.MatchRecording())
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("assistant: MARMALADE, and release v2.4.1."))
	})
})

// respondWith has the genai agent answer each call with response, its
// tool's result the output.
func respondWith(extra map[string]any) func(*genaiAgent) {
	return func(a *genaiAgent) {
		a.Respond = func(c *genai.FunctionCall, result string) *genai.FunctionResponse {
			response := map[string]any{"output": result}
			maps.Copy(response, extra)
			return &genai.FunctionResponse{ID: c.ID, Name: c.Name, Response: response}
		}
	}
}

// spawnLog is the spawn child's log of a recorded fork scenario: the
// session that calls lookup.
func spawnLog(dir string) string {
	GinkgoHelper()
	return string(mustRead(filepath.Join(dir, "session.2.jsonl")))
}

var _ = Describe("genai's function responses of more than an output, recorded live through the wire layer", func() {
	It("are recorded whole and reach the live model as sent, so a change in a member beside the output fails the replay at that result", func(ctx SpecContext) {
		notes := respondWith(map[string]any{"source": "notes"})
		dir, model := recordGenaiLive(ctx, notes)
		Expect(spawnLog(dir)).To(ContainSubstring(`"toolCallId":"call_1_1_0","name":"lookup","content":[{"type":"text","text":"{\"output\":\"v2.4.1\",\"source\":\"notes\"}"}]`))
		Expect(lastResponses(model, "lookup")).To(ConsistOf(map[string]any{"output": "v2.4.1", "source": "notes"}), "the object the agent sent")

		Expect(replayGenaiCtx(ctx, dir, notes)).To(harness.MatchRecording())
		o := replayGenaiCtx(ctx, dir, respondWith(map[string]any{"source": "wiki"}))
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring(`(tool/result, turn 1 step 1, lookup call call_1_1_0): data.message.content[0].content[0].text: golden "{\"output\":\"v2.4.1\",\"source\":\"notes\"}", replay "{\"output\":\"v2.4.1\",\"source\":\"wiki\"}"`))
	})
})

// lastResponses returns the response of each functionResponse for tool
// name that the live model got, in the bodies' order.
func lastResponses(model *geminiModelServer, name string) []any {
	GinkgoHelper()
	model.mu.Lock()
	defer model.mu.Unlock()
	var out []any
	for _, b := range model.bodies {
		contents := b["contents"].([]any)
		for _, p := range contents[len(contents)-1].(map[string]any)["parts"].([]any) {
			if fr, ok := p.(map[string]any)["functionResponse"].(map[string]any); ok && fr["name"] == name {
				out = append(out, fr["response"])
			}
		}
	}
	return out
}

// scheduled has the genai agent answer each call as a non-blocking
// function's last response: willContinue false, with scheduling.
func scheduled(scheduling genai.FunctionResponseScheduling) func(*genaiAgent) {
	return func(a *genaiAgent) {
		a.Respond = func(c *genai.FunctionCall, result string) *genai.FunctionResponse {
			return &genai.FunctionResponse{ID: c.ID, Name: c.Name, Response: map[string]any{"output": result},
				WillContinue: genai.Ptr(false), Scheduling: scheduling}
		}
	}
}

var _ = Describe("genai's function responses with willContinue and scheduling, recorded live through the wire layer", func() {
	It("are recorded with the tool result and reach the live model as sent, so another scheduling fails the replay at that result", func(ctx SpecContext) {
		silent := scheduled(genai.FunctionResponseSchedulingSilent)
		dir, model := recordGenaiLive(ctx, silent)
		Expect(spawnLog(dir)).To(ContainSubstring(`"toolCallId":"call_1_1_0","name":"lookup","content":[{"type":"text","text":"v2.4.1"}],"isError":false,"meta":{"gemini":{"scheduling":"SILENT","willContinue":false}}}`))

		model.mu.Lock()
		var sent []map[string]any
		for _, b := range model.bodies {
			contents := b["contents"].([]any)
			for _, p := range contents[len(contents)-1].(map[string]any)["parts"].([]any) {
				if fr, ok := p.(map[string]any)["functionResponse"].(map[string]any); ok {
					sent = append(sent, fr)
				}
			}
		}
		model.mu.Unlock()
		Expect(sent).NotTo(BeEmpty())
		for _, fr := range sent {
			Expect(fr).To(HaveKeyWithValue("willContinue", false))
			Expect(fr).To(HaveKeyWithValue("scheduling", "SILENT"))
		}

		Expect(replayGenaiCtx(ctx, dir, silent)).To(harness.MatchRecording())
		o := replayGenaiCtx(ctx, dir, scheduled(genai.FunctionResponseSchedulingInterrupt))
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring(`(tool/result, turn 1 step 1, lookup call call_1_1_0): data.message.content[0].meta.gemini.scheduling: golden "SILENT", replay "INTERRUPT"`))
	})
})

// differenceLine returns the line of o's report that names the first
// log difference of its session, without the fixture's folder.
func differenceLine(o *harness.Outcome) string {
	GinkgoHelper()
	for line := range strings.SplitSeq(o.Report(), "\n") {
		if strings.Contains(line, "(tool/result") {
			return strings.TrimSpace(line)
		}
	}
	Fail("the report names no tool/result:\n" + o.Report())
	return ""
}

var _ = Describe("a Gemini agent's changed tool result", func() {
	It("fails the replay at its tool/result naming the tool and the call, word for word as a Chat Completions agent's", func(ctx SpecContext) {
		chat := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(chat)
		chatLine := differenceLine(replayGenai(chat, sdkRuntimeWith(func(a *sdkagent.Agent) {
			l := lookup
			l.Run = func(context.Context, string) (string, error) { return "v9", nil }
			a.Tools = []sdkagent.Tool{l}
		})))
		Expect(chatLine).To(Equal(`session 2 (spawn of root via call_s): seq 13 (tool/result, turn 1 step 1, lookup call call_l): data.message.content[0].content[0].text: golden "v2.4.1", replay "v9"`))

		dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
		recordGenai(dir, genaiStreamed)
		o := replayGenaiCtx(ctx, dir, func(a *genaiAgent) {
			a.Respond = func(c *genai.FunctionCall, result string) *genai.FunctionResponse {
				if c.Name == "lookup" {
					result = "v9"
				}
				return &genai.FunctionResponse{ID: c.ID, Name: c.Name, Response: map[string]any{"output": result}}
			}
		})
		Expect(o.Drift).To(BeNil(), "a tool's result is what the tool said, not what the agent sent the model: no drift, for any API")
		Expect(differenceLine(o)).To(Equal(chatLine))
	})

	It("sent back without an id, paired by name as langchaingo's googleai sends it, names the call it was paired with", func(ctx SpecContext) {
		dir := newFixture("custom/sent", oneTurn, `{"sessions":{"root":[{"toolCalls":[`+
			`{"id":"call_a","name":"service_status","arguments":{"service":"billing"}},{"id":"call_b","name":"service_status","arguments":{"service":"search"}}]},{"text":"Billing is degraded."}]}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = sending(protoPath, protoBody(), protoBody(protoCall1, protoCall2))
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		changed := strings.Replace(protoCall2, "search: operational", "search: down", 1)
		o := mediaReplay(ctx, dir, sending(protoPath, protoBody(), protoBody(protoCall1, changed)))
		Expect(o.Drift).To(BeNil())
		Expect(differenceLine(o)).To(Equal(`root (root session): seq 20 (tool/result, turn 1 step 1, service_status call call_b): data.message.content[0].content[0].text: golden "{\"response\":\"search: operational\"}", replay "{\"response\":\"search: down\"}"`))
	})
})
