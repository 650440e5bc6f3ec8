package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"
)

// tokenCounts is what an agent that counts each call's tokens before it
// makes the call (Anthropic's client.Messages.CountTokens) got back.
type tokenCounts struct {
	// Note, when set, is a user text the agent adds to what it counts, and
	// not to its model calls: a count of another request than the
	// recording's.
	Note string
	// Retries is how many times the SDK retries a count answered with a
	// 429 or 5xx (default none).
	Retries int
	// Tolerate makes the agent go on without a count that failed, as an
	// agent that estimates its tokens then does; the count is kept as -1.
	Tolerate bool
	// Seen, when set, keeps every HTTP attempt of the SDK's counts.
	Seen *attempts

	mu  sync.Mutex
	got []int64
}

// count counts the tokens of a call of params, as the agent sends it:
// the same system blocks, conversation, tools, thinking and betas.
func (c *tokenCounts) count(ctx context.Context, client sdk.Client, params sdk.MessageNewParams, opts ...sdkoption.RequestOption) error {
	cp := sdk.MessageCountTokensParams{Model: params.Model, Messages: params.Messages, Thinking: params.Thinking,
		System: sdk.MessageCountTokensParamsSystemUnion{OfTextBlockArray: params.System}}
	if c.Note != "" {
		cp.Messages = append(slices.Clone(cp.Messages), sdk.NewUserMessage(sdk.NewTextBlock(c.Note)))
	}
	for _, t := range params.Tools {
		cp.Tools = append(cp.Tools, sdk.MessageCountTokensToolUnionParam{OfTool: t.OfTool})
	}
	if c.Retries > 0 {
		opts = append(slices.Clone(opts), sdkoption.WithMaxRetries(c.Retries))
	}
	if c.Seen != nil {
		opts = append(slices.Clone(opts), sdkoption.WithMiddleware(c.Seen.observe))
	}
	n, err := client.Messages.CountTokens(ctx, cp, opts...)
	if err != nil && c.Tolerate {
		n, err = &sdk.MessageTokensCount{InputTokens: -1}, nil
	}
	if err != nil {
		return fmt.Errorf("counting tokens: %w", err)
	}
	c.mu.Lock()
	c.got = append(c.got, n.InputTokens)
	c.mu.Unlock()
	return nil
}

// countGemini counts the tokens of contents (the Gemini API counts a
// conversation alone: genai refuses a system instruction or tools there).
func (c *tokenCounts) countGemini(ctx context.Context, client *genai.Client, contents []*genai.Content) error {
	if c.Note != "" {
		contents = append(slices.Clone(contents), genai.NewContentFromText(c.Note, genai.RoleUser))
	}
	n, err := client.Models.CountTokens(ctx, geminiModel, contents, nil)
	if err != nil {
		return fmt.Errorf("counting tokens: %w", err)
	}
	c.mu.Lock()
	c.got = append(c.got, int64(n.TotalTokens))
	c.mu.Unlock()
	return nil
}

// sorted returns the counts in order: children count at once.
func (c *tokenCounts) sorted() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.got))
}

// countEndpoint is a live Messages or Gemini endpoint: model calls go on
// to aimock, which has no count_tokens or countTokens; it answers those
// itself, a count from the body's length, and keeps them.
type countEndpoint struct {
	model http.Handler
	// Fail, when set, are the statuses the first counts are answered
	// with, one each, before the endpoint counts; FailText ends their
	// message.
	Fail     []int
	FailText string

	mu     sync.Mutex
	bodies []map[string]any
	header []http.Header
}

func newCountEndpoint(model string) *countEndpoint {
	target, err := url.Parse(model)
	Expect(err).NotTo(HaveOccurred())
	return &countEndpoint{model: httputil.NewSingleHostReverseProxy(target)}
}

func (c *countEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	isGemini := strings.HasSuffix(r.URL.Path, ":countTokens")
	if r.URL.Path != "/v1/messages/count_tokens" && !isGemini {
		c.model.ServeHTTP(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	Expect(json.Unmarshal(b, &body)).To(Succeed())
	c.mu.Lock()
	c.bodies, c.header = append(c.bodies, body), append(c.header, r.Header.Clone())
	fail := 0
	if len(c.Fail) > 0 {
		fail, c.Fail = c.Fail[0], c.Fail[1:]
	}
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if fail != 0 {
		w.WriteHeader(fail)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded (the count's failure %d)%s"}}`, fail, c.FailText)
		return
	}
	if isGemini {
		fmt.Fprintf(w, `{"totalTokens":%d,"promptTokensDetails":[{"modality":"TEXT","tokenCount":%d}]}`, len(b)/4, len(b)/4)
		return
	}
	fmt.Fprintf(w, `{"input_tokens":%d}`, len(b)/4)
}

const countKey = "sk-ant-live-key-0123456789"

// countingClaude is the Anthropic SDK agent of the mixed scenario (a fork
// and a spawn child at once) counting every call's tokens into counts.
func countingClaude(counts *tokenCounts) func(*claudeAgent) {
	return func(a *claudeAgent) {
		a.Counts, a.Thinking, a.MaxTokens = counts, 1024, 2048
		a.Betas = []string{"token-counting-2024-11-01"}
	}
}

// countingRun is a live recording of the counting agent: its fixture, the
// counts the agent got, the endpoint, and the options it was recorded
// with.
type countingRun struct {
	dir    string
	counts *tokenCounts
	ep     *countEndpoint
	opts   recorder.Options
}

// recordCounting records the counting agent live against aimock behind a
// countEndpoint.
func recordCounting(ctx context.Context) (string, *tokenCounts, *countEndpoint) {
	GinkgoHelper()
	r := recordCountingRun(ctx)
	return r.dir, r.counts, r.ep
}

func recordCountingRun(ctx context.Context) *countingRun {
	GinkgoHelper()
	srv := startAimock(ctx, claudeAimock)
	ep := newCountEndpoint(srv.URL)
	live := httptest.NewServer(ep)
	DeferCleanup(live.Close)
	dir := newFixture("mixed/claude-count", claudeScenario, claudePlaybook)
	drv, err := anthropic.New(anthropic.Config{BaseURL: live.URL, APIKey: countKey})
	Expect(err).NotTo(HaveOccurred())
	counts := &tokenCounts{}
	opts := liveClaude(drv, live.URL)
	opts.Runtime = claudeRuntimeWith(countingClaude(counts))
	_, err = recorder.Record(ctx, dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return &countingRun{dir: dir, counts: counts, ep: ep, opts: opts}
}

// ownCounts returns the count/tokens events of a session's own events.
func ownCounts(l *session.Log) []session.CountTokensData {
	var out []session.CountTokensData
	for _, e := range l.Events[l.Header.SeedLength:] {
		if e.Type == session.TypeCountTokens {
			var d session.CountTokensData
			Expect(e.Decode(&d)).To(Succeed())
			out = append(out, d)
		}
	}
	return out
}

var _ = Describe("token counts of an agent on the Anthropic SDK (POST /v1/messages/count_tokens)", func() {
	It("are recorded from the live endpoint in the log of the session that asked, and replayed offline by digest", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, recorded, ep := recordCounting(ctx)

		ep.mu.Lock()
		Expect(ep.bodies).To(HaveLen(len(recorded.sorted())))
		for i, body := range ep.bodies {
			Expect(body).NotTo(Or(HaveKey("stream"), HaveKey("max_tokens")), "a count is no model call")
			Expect(body).To(HaveKeyWithValue("thinking", map[string]any{"type": "enabled", "budget_tokens": 1024.0}))
			Expect(body).To(HaveKeyWithValue("system", "You are an agent on the Anthropic SDK."))
			Expect(ep.header[i].Get("X-Api-Key")).To(Equal(countKey), "the recording's key, not the agent's")
			Expect(ep.header[i].Get("Anthropic-Version")).To(Equal(anthropic.Version))
			Expect(ep.header[i].Values("Anthropic-Beta")).To(ContainElement("token-counting-2024-11-01"))
		}
		ep.mu.Unlock()

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		total := 0
		for _, l := range fx.Logs {
			counts := ownCounts(l)
			Expect(counts).To(HaveLen(len(session.ModelCalls(l.Events[l.Header.SeedLength:]))), "session %s counts each of its own calls", l.Header.ID)
			for _, d := range counts {
				Expect(d.API).To(Equal(anthropic.API))
				Expect(d.Model).To(Equal(claudeModel))
				Expect(d.Digest).To(HaveLen(64))
				Expect(d.InputTokens).To(BeNumerically(">", 0))
			}
			total += len(counts)
		}
		Expect(total).To(Equal(len(recorded.sorted())))
		for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl"} {
			Expect(string(mustRead(filepath.Join(dir, name)))).NotTo(ContainSubstring(countKey))
		}

		replayed := &tokenCounts{}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(replayed))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(replayed.sorted()).To(Equal(recorded.sorted()), "each count as the live endpoint answered it")
	})

	It("is drift when the agent counts another request, naming the session and the request", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, _, _ := recordCounting(ctx)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(&tokenCounts{Note: "Count this too."}))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(And(ContainSubstring("fakellm: 1 call to a recorded tool, MCP server or token count could not be served during the replay:"), ContainSubstring("token count drift"), ContainSubstring("token count request 1 of the session (anthropic-messages, model claude-sonnet-4-5, before its first turn)"),
			ContainSubstring("root"), ContainSubstring("counts another conversation, system prompt, tool set, model or settings")))
	})

	It("fails the replay's consumption check when a recorded count is never asked for", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, _, _ := recordCounting(ctx)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(func(a *claudeAgent) { a.Thinking, a.MaxTokens = 1024, 2048 })})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(And(ContainSubstring("never asked for the recorded token count of turn 1 step 0"), ContainSubstring("root/toolu_s")))
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Report()).To(ContainSubstring("token count drift: root (root session), token count 1 (turn 1 step 0): the agent no longer counts the recorded request here (anthropic-messages, model claude-sonnet-4-5, digest "))
	})

	It("are answered from the recording for a session an only-changed recording replays, and counted live for one recorded anew", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		run := recordCountingRun(ctx)
		before := logFiles(run.dir)
		run.ep.mu.Lock()
		asked := len(run.ep.bodies)
		run.ep.mu.Unlock()
		again := &tokenCounts{}
		opts := run.opts
		opts.Runtime, opts.OnlyChanged, opts.Session = claudeRuntimeWith(countingClaude(again)), true, "root/toolu_s"
		_, err := recorder.Record(ctx, run.dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.sorted()).To(Equal(run.counts.sorted()))
		fx, err := fixture.Load(run.dir)
		Expect(err).NotTo(HaveOccurred())
		run.ep.mu.Lock()
		Expect(len(run.ep.bodies)-asked).To(Equal(len(ownCounts(fx.Logs[2]))), "the spawn child's counts, and nothing else")
		run.ep.mu.Unlock()
		after := logFiles(run.dir)
		Expect(after["session.jsonl"]).To(Equal(before["session.jsonl"]))
		Expect(after["session.1.jsonl"]).To(Equal(before["session.1.jsonl"]))
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(&tokenCounts{}))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})

	It("are routed by lineage inference as the model calls are, a child's first request being a count (wire.InferLineage)", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, claudeAimock)
		live := httptest.NewServer(newCountEndpoint(srv.URL))
		DeferCleanup(live.Close)
		dir := newFixture("mixed/claude-count", claudeScenario, claudePlaybook)
		drv, err := anthropic.New(anthropic.Config{BaseURL: live.URL, APIKey: countKey})
		Expect(err).NotTo(HaveOccurred())
		inferred := func(counts *tokenCounts) func(*claudeAgent) {
			return func(a *claudeAgent) { countingClaude(counts)(a); a.Untagged = true }
		}
		recorded := &tokenCounts{}
		opts := liveClaude(drv, live.URL)
		opts.Runtime = claudeRuntimeWith(inferred(recorded), wire.InferLineage())
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header).To(And(HaveField("ParentCallID", "toolu_f"), HaveField("Mode", session.ModeFork)))
		Expect(fx.Logs[2].Header).To(And(HaveField("ParentCallID", "toolu_s"), HaveField("Mode", session.ModeSpawn)))
		for _, l := range fx.Logs {
			Expect(ownCounts(l)).To(HaveLen(len(session.ModelCalls(l.Own()))), "session %s counts each of its own calls", l.Header.ID)
		}
		replayed := &tokenCounts{}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(inferred(replayed), wire.InferLineage())})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(replayed.sorted()).To(Equal(recorded.sorted()))
	})

	It("are recorded from a playbook, each the estimate the playbook reports as the input tokens of a call of that request, and replayed", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir := newFixture("mixed/claude-count", claudeScenario, claudePlaybook)
		opts, err := recorder.PlaybookOptions(dir, time.Microsecond) // paced, as serve --record --pace is
		Expect(err).NotTo(HaveOccurred())
		recorded := &tokenCounts{}
		opts.Runtime = claudeRuntimeWith(countingClaude(recorded))
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		u, err := budget.Of(fx.Logs)
		Expect(err).NotTo(HaveOccurred())
		var inputs []int64
		for _, s := range u.Sessions {
			for _, c := range s.Calls {
				inputs = append(inputs, int64(c.Tokens.Input))
			}
		}
		slices.Sort(inputs)
		Expect(recorded.sorted()).To(Equal(inputs), "the agent counts each call's request before it makes the call")
		for _, l := range fx.Logs {
			Expect(ownCounts(l)).To(HaveLen(len(session.ModelCalls(l.Own()))), "session %s counts each of its own calls", l.Header.ID)
		}

		replayed := &tokenCounts{}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(replayed))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(replayed.sorted()).To(Equal(recorded.sorted()))
	})
})

var _ = Describe("token counts of an agent on the genai SDK (models/{model}:countTokens)", func() {
	It("are recorded from the live endpoint in the log of the session that asked, replayed offline by digest, and another request is drift", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, geminiAimock)
		ep := newCountEndpoint(srv.URL)
		live := httptest.NewServer(ep)
		DeferCleanup(live.Close)
		dir := newFixture("mixed/genai-count", forkScenario, forkPlaybook)
		drv, err := gemini.New(gemini.Config{BaseURL: live.URL, APIKey: "aimock-gemini-key-0123"})
		Expect(err).NotTo(HaveOccurred())
		recorded := &tokenCounts{}
		opts := recorder.LiveOptions(drv, live.URL, "gemini-2.5-flash")
		opts.Provider = gemini.API
		opts.Runtime = genaiRuntime(func(a *genaiAgent) { a.Counts = recorded })
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		ep.mu.Lock()
		Expect(ep.bodies).To(HaveLen(len(recorded.sorted())))
		for i, body := range ep.bodies {
			Expect(body).To(HaveKey("contents"))
			Expect(body).To(HaveLen(1), "the conversation alone, as genai sends it")
			Expect(ep.header[i].Get("X-Goog-Api-Key")).To(Equal("aimock-gemini-key-0123"), "the recording's key, not the agent's")
		}
		ep.mu.Unlock()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		for _, l := range fx.Logs {
			counts := ownCounts(l)
			Expect(counts).To(HaveLen(len(session.ModelCalls(l.Events[l.Header.SeedLength:]))), "session %s counts each of its own calls", l.Header.ID)
			for _, d := range counts {
				Expect(d.API).To(Equal(gemini.API))
				Expect(d.Model).To(Equal(geminiModel))
			}
		}

		replayed := &tokenCounts{}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: genaiRuntime(func(a *genaiAgent) { a.Counts = replayed })})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(replayed.sorted()).To(Equal(recorded.sorted()))

		o, err = judge.Replay(ctx, fx, harness.Options{Runtime: genaiRuntime(func(a *genaiAgent) { a.Counts = &tokenCounts{Note: "Count this too."} })})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring("token count drift: session root (session.jsonl): token count request 1 of the session (gemini, model gemini-agent-model, before its first turn)"))
	})
})

var _ = Describe("a Gemini countTokens body with a generateContentRequest", func() {
	It("is read as that request (system instruction, tools, settings) and sent on to the live endpoint the same way, the count recorded", func(ctx SpecContext) {
		ep := &countEndpoint{model: http.NotFoundHandler()}
		live := httptest.NewServer(ep)
		DeferCleanup(live.Close)
		drv, err := gemini.New(gemini.Config{BaseURL: live.URL, APIKey: "gemini-live-key-0123"})
		Expect(err).NotTo(HaveOccurred())
		h, store, url := serveWire(drv)
		body := `{"generateContentRequest":{"model":"models/g-1","contents":[{"role":"user","parts":[{"text":"hi"}]}],` +
			`"systemInstruction":{"parts":[{"text":"Be terse."}]},"generationConfig":{"temperature":0.5}}}`
		resp, err := http.Post(url+"/v1beta/models/g-1:countTokens", "application/json", strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(answer))
		Expect(h.Close(ctx)).To(Succeed())

		ep.mu.Lock()
		Expect(ep.bodies).To(HaveLen(1))
		sent := ep.bodies[0]["generateContentRequest"]
		Expect(sent).To(And(HaveKeyWithValue("model", "models/g-1"), HaveKeyWithValue("generationConfig", map[string]any{"temperature": 0.5}),
			HaveKeyWithValue("systemInstruction", map[string]any{"parts": []any{map[string]any{"text": "Be terse."}}})))
		ep.mu.Unlock()
		var n struct{ TotalTokens int64 }
		Expect(json.Unmarshal(answer, &n)).To(Succeed())
		logs, err := persistence.LoadAll(ctx, store)
		Expect(err).NotTo(HaveOccurred())
		Expect(logs).To(HaveLen(1))
		counts := ownCounts(logs[0])
		Expect(counts).To(HaveLen(1))
		Expect(counts[0]).To(And(HaveField("API", gemini.API), HaveField("Model", "g-1"), HaveField("InputTokens", n.TotalTokens)))
	})
})
