package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/agentsnap/agentsnap/internal/leaktest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap serve --record and the credentials of an --mcp URL", Label("secrets"), func() {
	It("refuses a recording that holds the token the live MCP server's URL carries, echoed by the server", func() {
		const token = "mcp-url-token-0123456789"
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"you called /mcp?token=%s"}]}}`, id, token)
		})
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "echo="+u.URL+"/mcp?token="+token)
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body, _ = mcpPost(s.url, "echo", toolsCall, nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		expectRefusedFor(dir, token, "the token= query parameter of --mcp echo", code, out, stderr)
	})

	It("keeps that token out of the error the agent gets when the server fails", func() {
		const token = "mcp-url-token-9876543210"
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			http.Error(w, "no such tool at /mcp?token="+token, http.StatusInternalServerError)
		})
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "echo="+u.URL+"/mcp?token="+token)
		DeferCleanup(func() { s.stop() })
		status, body, _ := mcpPost(s.url, "echo", toolsCall, nil)
		Expect(status).To(Equal(http.StatusBadGateway), body)
		Expect(rpcMessage(body)).To(ContainSubstring("the live MCP server echo"))
		Expect(body).NotTo(ContainSubstring(token))
	})
})

var _ = Describe("agentsnap serve --record stopping, and the token of an --mcp URL", Label("secrets"), func() {
	It("keeps that token out of the note that the live server did not end its session", func() {
		const token = "mcp-url-token-5555512345"
		u := sessionfulUpstream()
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "clock="+u.URL+"/mcp?token="+token)
		status, body, _ := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, nil)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		u.Close() // the DELETE that ends the live session finds no server: its error names the URL
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)
		Expect(stderr).To(ContainSubstring("agentsnap serve: note: the live MCP server clock did not end its session live-1 ("))
		Expect(stderr).NotTo(ContainSubstring(token))
	})
})

var _ = Describe("agentsnap serve replaying, and the agent's credentials", Label("secrets"), func() {
	It("shows the key the agent sends, or one of serve's key variables, nowhere in the verdict of a replay that differs", func() {
		const agentKey, envKey = "sk-agent-replay-0123456789", "sk-env-replay-0123456789"
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)

		s = startServe(map[string]string{"OPENAI_API_KEY": envKey}, "serve", dir, "--runtime", "own-agent")
		status, body = chatPost(s.url, chatJSON(`{"role":"assistant","content":"Noted."}`, `{"role":"user","content":"Keys: `+agentKey+` and `+envKey+`."}`), func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+agentKey)
		})
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr = s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(out).To(ContainSubstring("Keys: [REDACTED] and [REDACTED]."), "the difference is shown, the keys are not")
		for _, key := range []string{agentKey, envKey} {
			traces, err := leaktest.Traces(key, []string{filepath.Dir(dir)}, out, stderr)
			Expect(err).NotTo(HaveOccurred())
			Expect(traces).To(BeEmpty(), "stdout:\n%s\nstderr:\n%s", out, stderr)
		}
	})
})
