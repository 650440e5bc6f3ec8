package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sdkMinBackoff is the least anthropic-sdk-go waits before a first retry
// on its own: 0.5 s less at most a quarter of jitter. The wait lies wholly
// between the failure's end and the retry's start as its middleware sees
// them, so a retry that backed off is never seen sooner.
const sdkMinBackoff = 500 * time.Millisecond * 3 / 4

// retriedAtOnce bounds the time the SDK may wait between a replayed
// failure and its retry: two thirds of sdkMinBackoff, 250 ms. It stays
// 125 ms short of any back-off, and leaves 250 ms to a retry at once
// (which comes within milliseconds) on a loaded machine, where scheduling
// alone exceeded 100 ms.
const retriedAtOnce = sdkMinBackoff * 2 / 3

// retryGaps is an SDK middleware that keeps, for each attempt after the
// first, how long the SDK waited since the attempt before it ended.
type retryGaps struct {
	mu   sync.Mutex
	end  time.Time
	gaps []time.Duration
	sent []int // the status of each attempt
}

func (g *retryGaps) observe(r *http.Request, next sdkoption.MiddlewareNext) (*http.Response, error) {
	start := time.Now()
	res, err := next(r)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.end.IsZero() {
		g.gaps = append(g.gaps, start.Sub(g.end))
	}
	g.end = time.Now()
	status := 0
	if res != nil {
		status = res.StatusCode
	}
	g.sent = append(g.sent, status)
	return res, err
}

var _ = Describe("agentsnap serve, a replayed failure", func() {
	It("is retried at once by the agent's SDK, as often as while recording, and the replay matches", NodeTimeout(time.Minute), func(ctx SpecContext) {
		GinkgoT().Setenv("CI", "") // the recording writes the fixture and its golden
		dir := filepath.Join(GinkgoT().TempDir(), "errors", "retried")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [
			{"error": {"code": "SERVER", "message": "upstream connection reset"}},
			{"text": "OK"}
		]}}`), 0o644)).To(Succeed())

		// ask has an agent on the Anthropic SDK, retrying as it does by
		// default, ask serve for a whole answer.
		ask := func(ctx context.Context, url string) *retryGaps {
			g := &retryGaps{}
			client := sdk.NewClient(sdkoption.WithBaseURL(strings.TrimSuffix(url, "/v1")), sdkoption.WithAPIKey("sk-ant-agent-0123456789"),
				sdkoption.WithMaxRetries(2), sdkoption.WithMiddleware(g.observe))
			msg, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 256,
				Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Reply OK."))}})
			Expect(err).NotTo(HaveOccurred())
			Expect(msg.Content[0].Text).To(Equal("OK"))
			return g
		}

		s := startServe(nil, "serve", dir, "--record")
		recorded := ask(ctx, s.url)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(recorded.sent).To(Equal([]int{http.StatusInternalServerError, http.StatusOK}))

		s = startServe(nil, "serve", dir)
		replayed := ask(ctx, s.url)
		code, out, stderr = s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(ContainSubstring("replay matches the recording"))
		Expect(replayed.sent).To(Equal(recorded.sent), "the SDK retries as it did while recording")
		Expect(replayed.gaps).To(ConsistOf(BeNumerically("<", retriedAtOnce)), "the SDK waited before its retry: it backed off")
	})
})
