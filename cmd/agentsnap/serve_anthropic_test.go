package main

import (
	"bytes"
	"encoding/json"
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

var _ = Describe("agentsnap serve --record --live, an agent on the Anthropic SDK", func() {
	It("sends the live model the agent's anthropic-beta headers and cache breakpoints, and records neither", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, okAimock)
		// What reaches the live server, through a proxy in front of aimock
		// (aimock reads no cache_control).
		target, err := url.Parse(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		rp := httputil.NewSingleHostReverseProxy(target)
		var mu sync.Mutex
		var bodies []string
		var betas [][]string
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies, betas = append(bodies, string(b)), append(betas, r.Header.Values("Anthropic-Beta"))
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
			rp.ServeHTTP(w, r)
		}))
		DeferCleanup(proxy.Close)

		dir := filepath.Join(GinkgoT().TempDir(), "custom", "claude")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
		s := startServe(map[string]string{"AGENTSNAP_API_KEY": "aimock-key-0123456789"}, "serve", dir, "--record", "--live", "--base-url", proxy.URL, "--model", "m-1")

		client := sdk.NewClient(sdkoption.WithBaseURL(strings.TrimSuffix(s.url, "/v1")), sdkoption.WithAPIKey("sk-ant-agent-0123456789"), sdkoption.WithMaxRetries(0))
		cc := sdk.NewCacheControlEphemeralParam()
		msg, err := client.Messages.New(ctx, sdk.MessageNewParams{
			Model: "claude-sonnet-4-5", MaxTokens: 256,
			System:   []sdk.TextBlockParam{{Text: "You are terse.", CacheControl: cc}},
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: "Reply OK.", CacheControl: cc}})},
		}, sdkoption.WithHeaderAdd("anthropic-beta", "interleaved-thinking-2025-05-14"), sdkoption.WithHeaderAdd("anthropic-beta", "context-1m-2025-08-07"))
		Expect(err).NotTo(HaveOccurred())
		Expect(msg.Content[0].Text).To(Equal("OK from the model."))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)

		mu.Lock()
		defer mu.Unlock()
		Expect(betas).To(Equal([][]string{{"interleaved-thinking-2025-05-14", "context-1m-2025-08-07"}}))
		var body struct{ System, Messages json.RawMessage }
		Expect(json.Unmarshal([]byte(bodies[0]), &body)).To(Succeed())
		Expect(string(body.System)).To(MatchJSON(`[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}]`))
		Expect(string(body.Messages)).To(MatchJSON(`[{"role":"user","content":[{"type":"text","text":"Reply OK.","cache_control":{"type":"ephemeral"}}]}]`))
		log := readFile(filepath.Join(dir, fixture.RootLog))
		Expect(log).To(ContainSubstring(`"api":"anthropic-messages"`))
		Expect(log).NotTo(Or(ContainSubstring("cache_control"), ContainSubstring("interleaved-thinking")))
	})
})
