package wire_test

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

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sdkRuntimeOpts is the SDK agent with a change and handler options.
func sdkRuntimeOpts(change func(*sdkagent.Agent), opts ...wire.Option) agentsnap.Runtime {
	return wire.Runtime("sdk-test-agent", func(ctx context.Context, env *wire.Env) error {
		a := newSDKAgent(env)
		change(a)
		root := a.NewSession()
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := root.Send(ctx, prompt)
			return err
		})
	}, opts...)
}

func recordWith(dir string, rt agentsnap.Runtime) (*recorder.Result, error) {
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = rt
	return recorder.Record(context.Background(), dir, opts)
}

var _ = Describe("lineage inferred for an agent that names no sessions (wire.InferLineage)", func() {
	It("is refused by default, naming what to send", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		_, err := recordWith(dir, sdkRuntimeOpts(untagged))
		Expect(err).To(MatchError(ContainSubstring("which waits for the results of its tool calls (call_f, call_s), carries none of them; if it is a subagent's call, name its session: in process, make the child's context with wire.Spawn(ctx, callID) or wire.Fork(ctx, callID)")))
		Expect(err.Error()).To(ContainSubstring("wire.InferLineage()"))
	})

	It("fails a replay with that error's advice, not with the re-recording, which refuses it alike", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntimeOpts(untagged)})
		Expect(err).NotTo(HaveOccurred())
		report := o.Report()
		Expect(report).To(ContainSubstring("carries none of them; if it is a subagent's call, name its session"))
		Expect(report).To(HaveSuffix("\n\nRe-recording would not mend this (the run fails the same way while recording): do what the replay error says, then run again.\n"))
		Expect(report).NotTo(ContainSubstring(judge.RecordCommand(o)))
	})

	It("records each child under the open call whose arguments hold its prompt, a fork when it starts with its parent's turns, and replays it the same way", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		rt := sdkRuntimeOpts(untagged, wire.InferLineage())
		_, err := recordWith(dir, rt)
		Expect(err).NotTo(HaveOccurred())
		tagged := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(tagged)
		for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			Expect(string(mustRead(filepath.Join(dir, name)))).To(Equal(string(mustRead(filepath.Join(tagged, name)))), "%s: the same logs as with wire.Spawn and wire.Fork", name)
		}
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		for range 10 {
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: rt})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		}
	})
})

var _ = Describe("drift in what an SDK agent sends", func() {
	It("names a changed setting with both values", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		_, err := recordWith(dir, sdkRuntimeOpts(temperature(0.2)))
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntimeOpts(temperature(0.7))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the request settings changed: temperature 0.2 → 0.7"))
	})

	It("names the first message that changed", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Prompts[1] = "Fork one child for the codeword, and spawn one for the release."
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntime})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal(`root (root session), model call 2 (turn 2 step 1): the conversation sent differs from message 3 on (3 messages recorded, 3 now); message 3 was user "Fork a child for the codeword and spawn one for the release, at once.", now user "Fork one child for the codeword, and spawn one for the release."`))
	})

	It("leaves out what a fixture recorded before the API and the settings were kept never held", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		_, err := recordWith(dir, sdkRuntimeOpts(temperature(0.2)))
		Expect(err).NotTo(HaveOccurred())
		for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl"} {
			path := filepath.Join(dir, name)
			old := strings.NewReplacer(`,"api":"openai-chat"`, "", `,"settings":{"temperature":0.2}`, "").Replace(string(mustRead(path)))
			Expect(os.WriteFile(path, []byte(old), 0o644)).To(Succeed())
		}
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntimeOpts(temperature(0.2))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})

// idlessModel is a live OpenAI-compatible endpoint that sends tool calls
// without ids, as some servers do, and keeps the settings each request
// sent.
type idlessModel struct {
	mu       sync.Mutex
	settings []map[string]any
}

func (m *idlessModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msgs := body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	m.mu.Lock()
	m.settings = append(m.settings, map[string]any{"temperature": body["temperature"]})
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	frame := func(delta string, finish string) {
		f := `null`
		if finish != "" {
			f = `"` + finish + `"`
		}
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, f)
	}
	content, _ := last["content"].(string)
	switch {
	case last["role"] == "user" && strings.HasPrefix(content, "Fork a child"):
		// Two calls, no ids: the decoder names them call_0 and call_1.
		frame(`{"role":"assistant","tool_calls":[{"index":0,"type":"function","function":{"name":"subagent_fork","arguments":"{\"prompt\":\"What is the codeword?\"}"}}]}`, "")
		frame(`{"tool_calls":[{"index":1,"type":"function","function":{"name":"subagent_spawn","arguments":"{\"prompt\":\"Look up the release.\"}"}}]}`, "")
		frame(`{}`, "tool_calls")
	default:
		frame(`{"role":"assistant","content":"OK"}`, "")
		frame(`{}`, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

var _ = Describe("a live recording through the wire layer", func() {
	It("hands the agent the ids the log gives calls a server sent without, so children name them, and sends the agent's settings on", func() {
		model := &idlessModel{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		drv, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "live-model")
		opts.Runtime = sdkRuntimeOpts(temperature(0.3))
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header.ParentCallID).To(Equal("call_0"))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[2].Header.ParentCallID).To(Equal("call_1"))
		model.mu.Lock()
		defer model.mu.Unlock()
		Expect(model.settings).NotTo(BeEmpty())
		for _, s := range model.settings {
			Expect(s).To(HaveKeyWithValue("temperature", 0.3), "the agent's setting reached the live model")
		}
	})
})
