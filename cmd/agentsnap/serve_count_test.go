package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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

// countingClaude is an agent on the Anthropic SDK at serve's url that
// counts its call's tokens (client.Messages.CountTokens) — with note, a
// user text it counts and does not send — before it makes the call. It
// returns the count and the answer's text.
func countingClaude(ctx context.Context, url, note string) (int64, string, error) {
	client := sdk.NewClient(sdkoption.WithBaseURL(strings.TrimSuffix(url, "/v1")), sdkoption.WithAPIKey("sk-ant-agent-0123456789"), sdkoption.WithMaxRetries(0))
	params := sdk.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 256,
		System:   []sdk.TextBlockParam{{Text: "You are terse."}},
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Reply OK."))}}
	counted := params.Messages
	if note != "" {
		counted = append(counted, sdk.NewUserMessage(sdk.NewTextBlock(note)))
	}
	n, err := client.Messages.CountTokens(ctx, sdk.MessageCountTokensParams{Model: params.Model, Messages: counted,
		System: sdk.MessageCountTokensParamsSystemUnion{OfTextBlockArray: params.System}})
	if err != nil {
		return 0, "", err
	}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		return 0, "", err
	}
	return n.InputTokens, msg.Content[0].Text, nil
}

var _ = Describe("agentsnap serve, an agent on the Anthropic SDK that counts tokens (POST /v1/messages/count_tokens)", func() {
	// record records the counting agent through serve --record --live
	// against aimock behind a proxy that answers count_tokens itself
	// (aimock has no such endpoint), and returns the fixture, the count
	// and the headers of each count the live endpoint got.
	record := func(ctx context.Context) (string, int64, func() []http.Header) {
		return recordCounting(ctx, "claude-count", func(path string) bool { return path == "/v1/messages/count_tokens" }, `{"input_tokens":%d}`, countingClaude)
	}

	It("records the count from the live endpoint with --record --live, and a replay answers it from the recording", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, n, counted := record(ctx)
		Expect(counted()).To(HaveLen(1))
		Expect(counted()[0].Get("X-Api-Key")).To(Equal("aimock-key-0123456789"), "the recording's key, not the agent's")
		log := readFile(filepath.Join(dir, fixture.RootLog))
		Expect(log).To(ContainSubstring(fmt.Sprintf(`"api":"anthropic-messages","model":"claude-sonnet-4-5","digest":`)))
		Expect(log).To(ContainSubstring(fmt.Sprintf(`"inputTokens":%d}}`, n)))
		Expect(log).NotTo(Or(ContainSubstring("aimock-key-0123456789"), ContainSubstring("sk-ant-agent-0123456789")))

		s := startServe(nil, "serve", dir)
		again, text, err := countingClaude(ctx, s.url, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(n))
		Expect(text).To(Equal("OK from the model."))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(ContainSubstring("custom/claude-count: replay matches the recording"))
		Expect(counted()).To(HaveLen(1), "a replay asks no live endpoint")
	})

	It("fails a replay in which the agent counts another request, naming the session and the request", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, _, _ := record(ctx)
		s := startServe(nil, "serve", dir)
		_, _, err := countingClaude(ctx, s.url, "Count this too.")
		Expect(err).To(MatchError(ContainSubstring("400 Bad Request")))
		code, out, stderr := s.stop()
		Expect(code).NotTo(Equal(0))
		Expect(out + stderr).To(And(ContainSubstring("token count drift: session root"), ContainSubstring("token count request 1 of the session (anthropic-messages, model claude-sonnet-4-5, before its first turn)")))
	})
})

// recordCounting records an agent that counts its tokens (agent, given
// serve's url) through serve --record --live into a new fixture custom/NAME,
// against aimock behind a proxy that answers the count requests (isCount)
// itself with answer (formatted with a quarter of the body's length):
// aimock has no such endpoint. It returns the fixture, the agent's count
// and the headers of each count the live endpoint got.
func recordCounting(ctx context.Context, name string, isCount func(path string) bool, answer string,
	agent func(ctx context.Context, url, note string) (int64, string, error)) (string, int64, func() []http.Header) {
	GinkgoHelper()
	GinkgoT().Setenv("CI", "") // the recording writes the fixture and its golden
	srv := startAimock(ctx, okAimock)
	target, err := url.Parse(srv.URL)
	Expect(err).NotTo(HaveOccurred())
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var counted []http.Header
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isCount(r.URL.Path) {
			rp.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		counted = append(counted, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, answer, len(b)/4)
	}))
	DeferCleanup(proxy.Close)

	dir := filepath.Join(GinkgoT().TempDir(), "custom", name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
	s := startServe(map[string]string{"AGENTSNAP_API_KEY": "aimock-key-0123456789"}, "serve", dir, "--record", "--live", "--base-url", proxy.URL, "--model", "m-1")
	n, text, err := agent(ctx, s.url, "")
	Expect(err).NotTo(HaveOccurred())
	Expect(text).To(Equal("OK from the model."))
	code, out, stderr := s.stop()
	Expect(code).To(Equal(0), out+stderr)
	return dir, n, func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return append([]http.Header(nil), counted...)
	}
}
