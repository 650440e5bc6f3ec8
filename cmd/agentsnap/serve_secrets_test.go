package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// playbookScenario writes a scenario of one prompt, "Reply OK.", answered
// by the playbook's root answers, into a new folder CATEGORY/NAME.
func playbookScenario(rootAnswers string) string {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "billing", "own-key")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."], "agent": {"system": "You are terse."}}`), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [`+rootAnswers+`]}}`), 0o644)).To(Succeed())
	return dir
}

// chatPost sends one Chat Completions request (not streamed) to serve,
// edited by edit, and returns the status and the body.
func chatPost(serveURL, body string, edit func(*http.Request)) (int, string) {
	GinkgoHelper()
	code, b, _ := postJSON(serveURL+"/chat/completions", body, edit)
	return code, b
}

// chatJSON is a Chat Completions body of the scenario's conversation and
// then more messages.
func chatJSON(more ...string) string {
	return `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Reply OK."}` +
		strings.Join(append([]string{""}, more...), ",") + `]}`
}

// expectRefusedFor checks that a recording stopped with code, out and
// stderr was refused for holding key, named by source, and that key shows
// in no file under the scenario's category folder nor in either output.
func expectRefusedFor(dir, key, source string, code int, out, stderr string) {
	GinkgoHelper()
	traces, err := leaktest.Traces(key, []string{filepath.Dir(dir)}, out, stderr)
	Expect(err).NotTo(HaveOccurred())
	Expect(traces).To(BeEmpty(), "stdout:\n%s\nstderr:\n%s", out, stderr)
	Expect(code).To(Equal(1), out+stderr)
	Expect(stderr).To(ContainSubstring("a secret appears in the recording: the value of " + source))
	Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
}

var _ = Describe("agentsnap serve --record and the agent's own credentials", Label("secrets"), func() {
	It("refuses a recording that holds the key the agent sends with its model calls", func() {
		const key = "sk-agent-own-model-0123456789"
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		status, body := chatPost(s.url, chatJSON(`{"role":"assistant","content":"Noted."}`, `{"role":"user","content":"My key is `+key+`. Reply OK."}`), func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+key)
		})
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		expectRefusedFor(dir, key, "the bearer token in the Authorization header of the agent's request", code, out, stderr)
	})

	It("refuses a recording that holds the key the agent sends with a recorded tool", func() {
		const key = "sk-agent-own-tool-0123456789"
		dir := playbookScenario(`{"toolCalls": [{"id": "call_1", "name": "lookup", "arguments": {"key": "owner"}}]}, {"text": "done"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		tool := func(output string) (int, string) {
			call := map[string]any{"id": "call_1", "name": "lookup", "arguments": `{"key":"owner"}`}
			if output != "" {
				call["output"] = map[string]any{"text": output}
			}
			b, _ := json.Marshal(call)
			req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(s.url, "/v1")+toolPath, strings.NewReader(string(b)))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Api-Key", key)
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			rb, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(rb)
		}
		status, body = tool("")
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(body).To(MatchJSON(`{"run": true, "id": "call_1"}`))
		status, body = tool("the owner's key is " + key)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body = chatPost(s.url, chatJSON(
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"owner\"}"}}]}`,
			`{"role":"tool","tool_call_id":"call_1","content":"the owner's key is `+key+`"}`), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		expectRefusedFor(dir, key, "the x-api-key header of the agent's recorded tool", code, out, stderr)
	})

	It("refuses a recording that holds the key the agent sends to its MCP server", func() {
		const key = "mcp-agent-own-0123456789"
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"you sent %s"}]}}`, id, key)
		})
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "echo="+u.URL)
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body, _ = mcpPost(s.url, "echo", toolsCall, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+key) })
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		expectRefusedFor(dir, key, "the bearer token in the Authorization header of the agent's MCP request", code, out, stderr)
	})
})

var _ = Describe("agentsnap record --live naming its endpoint", Label("secrets"), func() {
	It("redacts a key the base URL carries in its path", func() {
		const key = "k3y-in-the-path-0123456789abcdef"
		root := GinkgoT().TempDir()
		_, err := leaktest.Scenario(root)
		Expect(err).NotTo(HaveOccurred())
		end := leaktest.New(leaktest.Auth401, key, DeferCleanup)
		r := cli(root, map[string]string{"AGENTSNAP_API_KEY": key}, "record", "fixtures/custom/leak", "--live", "--model", "m", "--base-url", end.URL+"/keys/"+key+"/v1")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("record: live model m at " + end.URL + "/keys/[REDACTED]/v1, "))
		traces, err := leaktest.Traces(key, []string{root}, r.stdout, r.stderr)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), r.stderr)
	})
})

var _ = Describe("serve's flags", func() {
	It("refuses --replace-golden without --record", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out, errb bytes.Buffer
		code := run(ctx, &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, []string{"serve", serveFixture, "--runtime", "go-agent", "--replace-golden"})
		Expect(code).To(Equal(2))
		Expect(errb.String()).To(ContainSubstring("only apply with --record"))
		Expect(out.String()).To(BeEmpty())
	})
})

var _ = Describe("record through a symlink to the folder above the tree", func() {
	It("refuses it, as any link that leads out of the fixtures tree, and writes nothing there", func() {
		root := GinkgoT().TempDir()
		Expect(cli(root, nil, "new", "fork/x").code).To(Equal(exitOK))
		Expect(os.Rename(filepath.Join(root, "fixtures", "fork", "x"), filepath.Join(root, "x"))).To(Succeed())
		before := treeDigest(filepath.Join(root, "x"))
		link := filepath.Join(root, "fixtures", "up")
		Expect(os.Symlink(root, link)).To(Succeed())
		r := cli(root, nil, "record", "fixtures/up/x")
		Expect(r.code).To(Equal(exitBadData), r.stdout+r.stderr)
		Expect(r.stderr).To(HavePrefix("agentsnap record: " + link + " is a symlink to "))
		Expect(r.stderr).To(ContainSubstring(", outside the fixtures tree " + filepath.Join(root, "fixtures") + ";"))
		Expect(treeDigest(filepath.Join(root, "x"))).To(Equal(before))
	})
})

var _ = Describe("serve's MCP endpoint while recording, against a live server's large answer", func() {
	It("reads no more of it than --max-body", func() {
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, id, strings.Repeat("x", 4<<10))
		})
		s := startServe(nil, "serve", copyFixture(), "--record", "--runtime", "go-agent", "--max-body", "1KiB", "--mcp", "big="+u.URL)
		status, body, _ := mcpPost(s.url, "big", toolsCall, nil)
		s.stop()
		Expect(status).To(Equal(http.StatusBadGateway), body)
		Expect(rpcMessage(body)).To(ContainSubstring("the live MCP server big (" + u.URL + "): its answer is no JSON-RPC response to the request"))
	})
})

var _ = Describe("serve's listener", func() {
	It("is refused when it landed off the loopback interface", func() {
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "0.0.0.0:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ln.Close)
		Expect(loopbackListener(ln)).To(MatchError(ContainSubstring("which is not a loopback address; give 127.0.0.1:PORT")))
		lo, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(lo.Close)
		Expect(loopbackListener(lo)).To(Succeed())
	})
})
