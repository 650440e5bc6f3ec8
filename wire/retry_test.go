package wire_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// sdkMinBackoff is the least openai-go and anthropic-sdk-go wait before a
// first retry on their own: 0.5 s less at most a quarter of jitter. The
// wait lies wholly between the failure's end and the retry's start as
// their middleware sees them, so a retry that backed off is never seen
// sooner.
const sdkMinBackoff = 500 * time.Millisecond * 3 / 4

// noBackoff bounds the time an SDK may wait between a replayed failure
// and its retry: two thirds of sdkMinBackoff, 250 ms. It stays 125 ms
// short of any back-off, and leaves 250 ms to a retry at once (served in
// process in microseconds) on a loaded machine, where scheduling alone
// exceeded 100 ms.
const noBackoff = sdkMinBackoff * 2 / 3

// attempt is one HTTP attempt an SDK made, as its middleware saw it.
type attempt struct {
	Start, End   time.Time
	Status       int
	RetryCount   string // the X-Stainless-Retry-Count the SDK sent: its retry, not the agent's own call
	RetryAfterMs string // the Retry-After-Ms of the answer
}

// attempts is an SDK middleware (openai-go's and anthropic-sdk-go's have
// the same type) that keeps every attempt of the client it is given to:
// the SDK runs it once per attempt, around the transport, after its
// back-off.
type attempts struct {
	mu  sync.Mutex
	all []attempt
}

func (a *attempts) observe(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	start := time.Now()
	res, err := next(r)
	at := attempt{Start: start, End: time.Now(), RetryCount: r.Header.Get("X-Stainless-Retry-Count")}
	if res != nil {
		at.Status, at.RetryAfterMs = res.StatusCode, res.Header.Get("Retry-After-Ms")
	}
	a.mu.Lock()
	a.all = append(a.all, at)
	a.mu.Unlock()
	return res, err
}

// take returns the attempts kept so far and forgets them.
func (a *attempts) take() []attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	all := a.all
	a.all = nil
	return all
}

// replayRetried replays the recording in dir with rt and asserts that it
// matches, and that the SDK (its attempts seen) made the failed attempt
// and its retry again, the retry at once.
func replayRetried(ctx context.Context, dir string, rt agentsnap.Runtime, seen *attempts, status int) {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(ctx, fx, harness.Options{Runtime: rt})
	Expect(err).NotTo(HaveOccurred())
	Expect(o).To(harness.MatchRecording())
	replayed := seen.take()
	Expect(replayed).To(HaveLen(2), "the SDK sends the call again as it did while recording")
	expectRetriedAtOnce(replayed, status)
}

// expectRetriedAtOnce asserts that the run's first attempt failed with
// status, that the SDK retried it, and that the retry left as soon as the
// failure came: the answer told it to, and no back-off ran in between.
func expectRetriedAtOnce(all []attempt, status int) {
	GinkgoHelper()
	Expect(len(all)).To(BeNumerically(">=", 2), "%+v", all)
	failed, retry := all[0], all[1]
	Expect(failed).To(And(HaveField("Status", status), HaveField("RetryCount", "0")))
	Expect(retry).To(And(HaveField("Status", http.StatusOK), HaveField("RetryCount", "1")), "the SDK's retry of the failed call")
	Expect(retry.Start.Sub(failed.End)).To(BeNumerically("<", noBackoff), "the SDK waited before its retry")
	Expect(failed.RetryAfterMs).To(Equal("1"), "the failure tells the SDK to retry at once")
	for _, at := range all[1:] {
		Expect(at.Status).To(Equal(http.StatusOK), "one failure, one retry: %+v", all)
	}
}

// retryingClaude has the Anthropic SDK agent ask for whole answers (a
// stream's failure is an event after its 200, which no SDK retries) on a
// client that retries as the SDK does by default, through seen.
func retryingClaude(seen *attempts) func(*claudeAgent) {
	return func(a *claudeAgent) {
		a.Whole = true
		a.client = sdk.NewClient(append(slices.Clone(a.client.Options), sdkoption.WithMaxRetries(2), sdkoption.WithMiddleware(seen.observe))...)
	}
}

// failingFirst is a live endpoint that answers its first model call with
// status, as an overloaded API does — an error body and a Retry-After of
// its own — and hands the others to model.
type failingFirst struct {
	model  http.Handler
	status int

	mu     sync.Mutex
	failed bool
}

func (f *failingFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	fail := !f.failed
	f.failed = true
	f.mu.Unlock()
	if !fail {
		f.model.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "30")
	w.WriteHeader(f.status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded (HTTP %d)"}}`, f.status)
}

var _ = Describe("a replayed failure", func() {
	It("is retried by anthropic-sdk-go at once, the recorded 529 of a live API and its Retry-After notwithstanding, and replays the logs as recorded", NodeTimeout(time.Minute), func(ctx SpecContext) {
		live := &failingFirst{model: &messagesModel{say: func(map[string]any) string { return "Something." }}, status: 529}
		srv := httptest.NewServer(live)
		DeferCleanup(srv.Close)
		// The driver retries nothing: the agent gets the 529 and retries.
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789", MaxRetries: -1})
		Expect(err).NotTo(HaveOccurred())
		dir := newFixture("custom/overloaded", oneTurn, `{"sessions":{"root":[{"text":"x"}]}}`)
		seen := &attempts{}
		rt := claudeRuntimeWith(retryingClaude(seen))
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = rt
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		recorded := seen.take()
		Expect(recorded).To(HaveLen(2))
		expectRetriedAtOnce(recorded, 529)
		Expect(string(mustRead(filepath.Join(dir, "session.jsonl")))).To(ContainSubstring(`"status":529`))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("model call failed (attempt 1)"))

		replayRetried(ctx, dir, rt, seen, 529)
	})

	It("is retried by openai-go at once, a 429 of a playbook recording, and replays the logs as recorded", NodeTimeout(time.Minute), func(ctx SpecContext) {
		dir := newFixture("custom/limited", oneTurn, `{"sessions":{"root":[
			{"error": {"code": "RATE_LIMIT", "message": "slow down"}},
			{"text": "Something."}
		]}}`)
		seen := &attempts{}
		rt := sdkRuntimeWith(func(a *sdkagent.Agent) {
			wholeAnswers(a)
			a.Client = openai.NewClient(append(slices.Clone(a.Client.Options), option.WithMaxRetries(2), option.WithMiddleware(seen.observe))...)
		})
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = rt
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(seen.take()).To(HaveLen(2))

		replayRetried(ctx, dir, rt, seen, http.StatusTooManyRequests)
	})

	It("of a token count is counted again by anthropic-sdk-go at once, and replays the logs as recorded", NodeTimeout(time.Minute), func(ctx SpecContext) {
		ep := &countEndpoint{model: &messagesModel{say: func(map[string]any) string { return "Something." }}, Fail: []int{http.StatusServiceUnavailable}}
		srv := httptest.NewServer(ep)
		DeferCleanup(srv.Close)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: countKey, MaxRetries: -1})
		Expect(err).NotTo(HaveOccurred())
		dir := newFixture("custom/count", oneTurn, `{"sessions":{"root":[{"text":"x"}]}}`)
		seen := &attempts{}
		counting := func() agentsnap.Runtime {
			return claudeRuntimeWith(countingClaude(&tokenCounts{Retries: 2, Seen: seen}))
		}
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = counting()
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(seen.take()).To(HaveLen(2), "the failed count and the SDK's retry")

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(ownCounts(fx.Logs[0])).To(HaveLen(2))
		replayRetried(ctx, dir, counting(), seen, http.StatusServiceUnavailable)
	})
})

// failDriver fails every call as a live model failed it while recording.
var failDriver = llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
	return slices.Values([]llm.Chunk{session.ErrorFinish("SERVER", "upstream connection reset")}), nil
})

var _ = Describe("the answer to a failed model call, whole", func() {
	DescribeTable("tells an SDK to retry at once, and leaves whether to the status, in every API",
		func(path, body string) {
			_, _, url := serveWire(failDriver)
			resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusInternalServerError))
			Expect(resp.Header.Get("Retry-After-Ms")).To(Equal("1"), "0 reads as no value to some SDKs, which then back off")
			Expect(resp.Header.Get("Retry-After")).To(Equal("0"))
			Expect(resp.Header.Values("X-Should-Retry")).To(BeEmpty(), "whether to retry is the status's, as it was while recording")
		},
		Entry("Chat Completions", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`),
		Entry("Responses", "/v1/responses", `{"model":"m","input":[{"role":"user","content":"hi"}]}`),
		Entry("Anthropic Messages", "/v1/messages", `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`),
		Entry("Gemini", "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`),
	)
})

var _ = Describe("a request agentsnap refuses", func() {
	DescribeTable("tells an SDK not to send it again",
		func(path, body string, status int) {
			_, _, url := serveWire(sayDriver)
			resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(status))
			Expect(resp.Header.Get("X-Should-Retry")).To(Equal("false"))
			Expect(resp.Header.Values("Retry-After-Ms")).To(BeEmpty())
		},
		Entry("a body that is no call", "/v1/chat/completions", `{"model":"m"}`, http.StatusBadRequest),
		Entry("a path no API has", "/v1/embeddings", `{}`, http.StatusNotFound),
	)

	It("is not retried by anthropic-sdk-go when it is a 5xx: a token count the live model did not answer", func(ctx SpecContext) {
		_, h := gatewayCounts()
		seen := &attempts{}
		client := sdk.NewClient(sdkoption.WithBaseURL("http://agentsnap.invalid"), sdkoption.WithAPIKey(claudeAgentKey), sdkoption.WithMaxRetries(2),
			sdkoption.WithHTTPClient(&http.Client{Transport: wire.Transport(h)}), sdkoption.WithMiddleware(seen.observe))
		_, err := client.Messages.CountTokens(ctx, sdk.MessageCountTokensParams{Model: claudeModel, Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("How long is this?"))}})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadGateway))
		Expect(seen.take()).To(HaveLen(1), "the count is sent once: again, it would fail the same way, after a back-off")
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring("is no token count")))
	})
})
