package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/agentsnap/agentsnap/internal/aimock"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// startAimock starts aimock with the fixtures config, stopped when the
// spec ends; without aimock installed the spec is skipped, unless CI
// requires it.
func startAimock(ctx context.Context, config string) *aimock.Server {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "aimock.json")
	Expect(os.WriteFile(path, []byte(config), 0o644)).To(Succeed())
	srv, err := aimock.Start(ctx, path)
	if errors.Is(err, aimock.ErrMissing) && !aimock.Required() {
		Skip(err.Error())
	}
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Stop)
	return srv
}

// okAimock answers the one-turn scenario of record --live in any API.
const okAimock = `{"fixtures": [{"match": {"userMessage": "Reply OK."}, "response": {"content": "OK from the model."}}]}`

var _ = Describe("agentsnap record --live --api, against aimock, an independent server of every API", func() {
	var srv *aimock.Server
	var paths []string // what the recording called, through a proxy in front of aimock
	var proxyURL string
	BeforeEach(func(ctx SpecContext) {
		srv = startAimock(ctx, okAimock)
		target, err := url.Parse(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		rp := httputil.NewSingleHostReverseProxy(target)
		var mu sync.Mutex
		paths = nil
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			rp.ServeHTTP(w, r)
		}))
		DeferCleanup(proxy.Close)
		proxyURL = proxy.URL
	}, NodeTimeout(time.Minute))

	DescribeTable("records the reference agent in the API named, and replays it offline",
		func(api, keyVar, base, path, provider, apiFlag string) {
			root := GinkgoT().TempDir()
			dir := filepath.Join(root, "fixtures", "custom", "live")
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
			env := map[string]string{keyVar: "aimock-key-0123456789"}
			r := cli(root, env, "record", "--live", "--api", api, "--base-url", proxyURL+base, "--model", "m-1", "fixtures/custom/live")
			Expect(r.code).To(Equal(0), r.stdout+r.stderr)
			Expect(r.stderr).To(ContainSubstring("(key from " + keyVar + ")"))
			l, err := session.ReadFile(filepath.Join(dir, fixture.RootLog))
			Expect(err).NotTo(HaveOccurred())
			var headers []string
			for _, ev := range l.Events {
				if ev.Type == session.TypeRequestHeader {
					var h session.RequestHeaderData
					Expect(json.Unmarshal(ev.Data, &h)).To(Succeed())
					headers = append(headers, h.API+" "+h.Provider)
				}
			}
			Expect(headers).To(Equal([]string{" " + provider}), "the reference agent's own requests name no API")
			Expect(paths).To(Equal([]string{path}), "the call went to the API named")
			Expect(os.ReadFile(filepath.Join(dir, fixture.GoldenFile))).To(ContainSubstring("assistant: OK from the model."))
			sc, err := scenario.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(sc.Recorded.Provider).To(Equal(provider))

			r = cli(root, nil, "check", "fixtures/custom/live")
			Expect(r.code).To(Equal(0), r.stdout+r.stderr)

			// A changed prompt: the fix re-records from the same API.
			b, err := os.ReadFile(filepath.Join(dir, scenario.File))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, scenario.File), bytes.Replace(b, []byte("Reply OK."), []byte("Reply OK!"), 1), 0o644)).To(Succeed())
			r = cli(root, nil, "check", "fixtures/custom/live")
			Expect(r.code).To(Equal(1))
			Expect(r.stdout).To(ContainSubstring("go tool agentsnap record " + dir + " --live --base-url URL --model m-1" + apiFlag + "\n"))
		},
		Entry("OpenAI Chat Completions, the default's name", "openai-chat", "OPENAI_API_KEY", "/v1", "/v1/chat/completions", "openai-compatible", ""),
		Entry("OpenAI Responses", "responses", "OPENAI_API_KEY", "/v1", "/v1/responses", "openai-responses", " --api openai-responses"),
		Entry("Anthropic Messages, from the origin", "anthropic", "ANTHROPIC_API_KEY", "", "/v1/messages", "anthropic-messages", " --api anthropic-messages"),
		Entry("Gemini, from the origin", "gemini", "GEMINI_API_KEY", "", "/v1beta/models/m-1:streamGenerateContent", "gemini", " --api gemini"),
	)
})

var _ = Describe("agentsnap record --live --api, refused", func() {
	It("names the APIs it takes for an unknown one, and the variables for a missing key", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, map[string]string{"AGENTSNAP_API_KEY": "k-0123456789"}, "record", "--live", "--api", "cohere", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "fixtures/spawn/one-child")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring(`unknown model API "cohere"; want one of openai-chat (chat, openai), openai-responses (responses), anthropic-messages (anthropic, claude), gemini (google)`))
		r = cli(root, map[string]string{"OPENAI_API_KEY": "k-0123456789"}, "record", "--live", "--api", "anthropic", "--base-url", "http://127.0.0.1:1", "--model", "m", "fixtures/spawn/one-child")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("a live recording of Anthropic Messages needs an API key: set AGENTSNAP_API_KEY, or ANTHROPIC_API_KEY"))
		Expect(strings.Count(r.stderr, "k-0123456789")).To(BeZero())
		r = cli(root, nil, "record", "--api", "gemini", "fixtures/spawn/one-child")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("--base-url, --model, --api and --keep-live-failures only apply with --live"))
	})
})
