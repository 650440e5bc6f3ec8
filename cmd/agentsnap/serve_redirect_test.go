package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// redirector is a server that redirects every request (307, which sends
// the body again) to another origin, elsewhere, which counts what it gets.
func redirector() (from *httptest.Server, elsewhere *atomic.Int64, to string) {
	var got atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	DeferCleanup(other.Close)
	from = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	DeferCleanup(from.Close)
	return from, &got, other.URL
}

var _ = Describe("agentsnap serve --record and an upstream that redirects to another origin", Label("secrets"), func() {
	It("sends the key in x-api-key (Anthropic) and the agent's conversation nowhere else, and fails the recording saying where it pointed", func() {
		const key = "sk-ant-redirect-0123456789"
		base, elsewhere, other := redirector()
		dir := liveScenario()
		s := startServe(map[string]string{"ANTHROPIC_API_KEY": key}, "serve", dir, "--record", "--runtime", "go-agent",
			"--live", "--api", "anthropic", "--base-url", base.URL, "--model", "real-model")
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).NotTo(Equal(http.StatusOK), body)
		Expect(body).To(ContainSubstring("a redirect to " + other + ", another origin"))
		Expect(body).NotTo(ContainSubstring(key))
		code, out, stderr := s.stop()
		Expect(elsewhere.Load()).To(BeZero(), "the redirect was followed")
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(stderr).To(ContainSubstring("answered 307 with a redirect to " + other + ", another origin; agentsnap follows redirects only within the origin it was given"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
		traces, err := leaktest.Traces(key, []string{filepath.Dir(dir)}, out, stderr)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty())
	})

	It("sends an MCP request, the agent's Authorization and the --mcp URL's token nowhere else", func() {
		const token = "mcp-redirect-token-0123456789"
		u, elsewhere, other := redirector()
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "echo="+u.URL+"/mcp?token="+token)
		DeferCleanup(func() { s.stop() })
		status, body, _ := mcpPost(s.url, "echo", toolsCall, func(r *http.Request) { r.Header.Set("Authorization", "Bearer agent-"+token) })
		Expect(status).To(Equal(http.StatusBadGateway), body)
		Expect(elsewhere.Load()).To(BeZero(), "the redirect was followed")
		Expect(rpcMessage(body)).To(ContainSubstring("a redirect to " + other + ", another origin"))
		Expect(body).NotTo(ContainSubstring(token))
	})
})
