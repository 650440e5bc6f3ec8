package wire_test

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a token count the live endpoint fails while recording", func() {
	var recordWith func(ctx SpecContext, counts *tokenCounts, change func(*countEndpoint, *recorder.Options), fail ...int) (string, *countEndpoint, error)
	// record records the Anthropic SDK agent that counts before each call
	// live against aimock behind a countEndpoint that fails the first
	// counts with fail; the live driver retries nothing, so the agent gets
	// each failure.
	record := func(ctx SpecContext, counts *tokenCounts, fail ...int) (string, *countEndpoint, error) {
		return recordWith(ctx, counts, func(*countEndpoint, *recorder.Options) {}, fail...)
	}
	recordWith = func(ctx SpecContext, counts *tokenCounts, change func(*countEndpoint, *recorder.Options), fail ...int) (string, *countEndpoint, error) {
		srv := startAimock(ctx, claudeAimock)
		ep := newCountEndpoint(srv.URL)
		ep.Fail = fail
		live := httptest.NewServer(ep)
		DeferCleanup(live.Close)
		dir := newFixture("mixed/claude-count", claudeScenario, claudePlaybook)
		drv, err := anthropic.New(anthropic.Config{BaseURL: live.URL, APIKey: countKey, MaxRetries: -1})
		Expect(err).NotTo(HaveOccurred())
		opts := liveClaude(drv, live.URL)
		opts.Runtime = claudeRuntimeWith(countingClaude(counts))
		change(ep, &opts)
		_, err = recorder.Record(ctx, dir, opts)
		return dir, ep, err
	}

	It("is recorded as failed, with its status, when the agent counts again, and a replay answers the agent the failure, then the count", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		recorded := &tokenCounts{Retries: 1}
		dir, ep, err := record(ctx, recorded, http.StatusServiceUnavailable)
		Expect(err).NotTo(HaveOccurred())
		ep.mu.Lock()
		Expect(ep.bodies).To(HaveLen(len(recorded.sorted())+1), "the SDK counted the failed request again")
		ep.mu.Unlock()

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		counts := ownCounts(fx.Logs[0])
		Expect(len(counts)).To(BeNumerically(">", 2))
		Expect(counts[0].Failure).NotTo(BeNil())
		Expect(*counts[0].Failure).To(And(HaveField("Status", http.StatusServiceUnavailable), HaveField("Code", "SERVER"),
			HaveField("Message", ContainSubstring("the count's failure 503"))))
		Expect(counts[0].InputTokens).To(BeZero())
		Expect(counts[1]).To(And(HaveField("Digest", counts[0].Digest), HaveField("Failure", BeNil()), HaveField("InputTokens", BeNumerically(">", 0))))
		Expect(string(mustRead(dir + "/session.jsonl"))).NotTo(ContainSubstring(countKey))
		Expect(string(mustRead(dir + "/transcript.golden"))).To(ContainSubstring("count tokens failed: SERVER (HTTP 503)"))

		replayed := &tokenCounts{Retries: 1}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(replayed))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		Expect(replayed.sorted()).To(Equal(recorded.sorted()))

		o, err = judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(&tokenCounts{}))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse(), "an agent that does not count again meets the recorded failure")
		Expect(o.Report()).To(ContainSubstring("503 Service Unavailable"))
	})

	It("fails the recording when the agent never counts the request again with success, naming the session, the request and the failure", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, _, err := record(ctx, &tokenCounts{Tolerate: true}, http.StatusServiceUnavailable)
		Expect(err).To(MatchError(recorder.ErrLiveFailure))
		Expect(err).To(MatchError(And(ContainSubstring("1 token count failed at "),
			MatchRegexp(`\n  session \S+, the token count of the request with digest [0-9a-f]{12}, never counted again with success: SERVER: `),
			ContainSubstring("the count's failure 503"), ContainSubstring("let the agent count again after a failed count"),
			ContainSubstring("record with --keep-live-failures"), ContainSubstring("nothing was saved"))))
		Expect(dir + "/" + fixture.RootLog).NotTo(BeAnExistingFile())
	})

	It("is kept, as a failed model call is, when the recording keeps live failures (--keep-live-failures), and replays", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, _, err := recordWith(ctx, &tokenCounts{Tolerate: true}, func(_ *countEndpoint, opts *recorder.Options) {
			opts.KeepLiveFailures = true
		}, http.StatusServiceUnavailable)
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		counts := ownCounts(fx.Logs[0])
		Expect(counts).NotTo(BeEmpty())
		Expect(counts[0].Failure).To(HaveField("Status", http.StatusServiceUnavailable))

		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(countingClaude(&tokenCounts{Tolerate: true}))})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})

	It("is recorded with the recording's secrets gone from its message", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		const secret = "tenant-secret-0123456789"
		dir, _, err := recordWith(ctx, &tokenCounts{Retries: 1}, func(ep *countEndpoint, opts *recorder.Options) {
			ep.FailText = " for tenant " + secret
			opts.Secrets = map[string]string{"TENANT_TOKEN": secret}
		}, http.StatusServiceUnavailable)
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		failed := ownCounts(fx.Logs[0])[0].Failure
		Expect(failed).NotTo(BeNil())
		Expect(failed.Message).To(And(ContainSubstring("(the count's failure 503) for tenant "), Not(ContainSubstring(secret))))
	})
})

// A live endpoint that answers a token count with a 2xx that holds no
// count (a gateway's page, a proxy without the API's count endpoint)
// fails the recording saying what to do about the base URL.
var _ = Describe("a token count the live endpoint answers with no count", func() {
	It("fails the recording naming the endpoint, the answer and what to do", func(ctx SpecContext) {
		srv, h := gatewayCounts()
		client := sdk.NewClient(sdkoption.WithBaseURL("http://agentsnap.invalid"), sdkoption.WithAPIKey(claudeAgentKey), sdkoption.WithMaxRetries(0),
			sdkoption.WithHTTPClient(&http.Client{Transport: wire.Transport(h)}))
		_, err := client.Messages.CountTokens(ctx, sdk.MessageCountTokensParams{Model: claudeModel, Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("How long is this?"))}})
		Expect(err).To(HaveOccurred())
		Expect(h.Close(ctx)).To(MatchError(And(ContainSubstring("POST /v1/messages/count_tokens of session root"),
			ContainSubstring("is no token count"), ContainSubstring("<html>gateway</html>"),
			ContainSubstring(srv.URL+"/v1/messages/count_tokens answered HTTP 200 but not the API's count"),
			ContainSubstring("point the base URL at the API itself"))))
	})
})

// gatewayCounts is a wire handler recording live token counts from an
// endpoint that answers every request with a gateway's HTML page (HTTP
// 200, no count), and that endpoint.
func gatewayCounts() (*httptest.Server, *wire.Handler) {
	GinkgoHelper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>gateway</html>"))
	}))
	DeferCleanup(srv.Close)
	drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789", MaxRetries: -1})
	Expect(err).NotTo(HaveOccurred())
	h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New()})
	Expect(err).NotTo(HaveOccurred())
	return srv, h
}
