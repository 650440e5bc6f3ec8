package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// chatBody is a valid Chat Completions request.
const chatBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"Reply OK."}]}`

// post sends a request to serve's URL, edited by edit, and returns the
// status and the JSON error's message.
func post(serveURL string, edit func(*http.Request)) (int, string, http.Header) {
	GinkgoHelper()
	code, body, h := postJSON(serveURL+"/chat/completions", chatBody, edit)
	var e struct{ Error struct{ Message string } }
	_ = json.Unmarshal([]byte(body), &e)
	return code, e.Error.Message, h
}

// postJSON POSTs a JSON body to url, edited by edit, and returns the
// status, the body and the headers.
func postJSON(url, body string, edit func(*http.Request)) (int, string, http.Header) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(b), resp.Header
}

// hostPort is the host:port of serve's URL.
func hostPort(serveURL string) string {
	u, err := url.Parse(serveURL)
	Expect(err).NotTo(HaveOccurred())
	return u.Host
}

// liveServer is a fake live model that counts the requests it gets and
// answers OK.
func liveServer() (*httptest.Server, *atomic.Int64) {
	var got atomic.Int64
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"OK\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	DeferCleanup(live.Close)
	return live, &got
}

// liveScenario is a scenario folder for recording from a live model.
func liveScenario() string {
	dir := filepath.Join(GinkgoT().TempDir(), "billing", "live")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."], "agent": {"system": "You are terse."}}`), 0o644)).To(Succeed())
	return dir
}

var _ = Describe("agentsnap serve answers only its own agent", func() {
	It("refuses DNS rebinding (a foreign Host) and says so in its verdict", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		hp := hostPort(s.url)
		_, p, _ := strings.Cut(hp, ":")
		status, msg, _ := post(s.url, func(r *http.Request) { r.Host = "rebind.evil.example:" + p })
		Expect(status).To(Equal(http.StatusMisdirectedRequest))
		Expect(msg).To(ContainSubstring(`the request's Host is "rebind.evil.example:` + p + `", and serve answers only requests to the address it printed, ` + hp))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(1), out+stderr)
		Expect(stderr).To(ContainSubstring("agentsnap serve: note: refused POST /v1/chat/completions (421): the request's Host is"))
		Expect(stderr).To(ContainSubstring("no model call reached serve before it stopped, so nothing was replayed (serve refused 1 request; the note above says why)"))
	})

	It("with --record --live, spends nothing on a web page's cross-site text/plain POST: the live model gets no request", func() {
		live, got := liveServer()
		dir := liveScenario()
		before := visible(dir)
		s := startServe(map[string]string{"AGENTSNAP_API_KEY": "sk-guard-test-0123456789"}, "serve", dir, "--record", "--runtime", "go-agent", "--live", "--base-url", live.URL+"/v1", "--model", "real-model")
		// What a form or fetch() from https://evil.example sends without a preflight.
		status, msg, _ := post(s.url, func(r *http.Request) {
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Content-Type", "text/plain;charset=UTF-8")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		})
		Expect(status).To(Equal(http.StatusForbidden))
		Expect(msg).To(ContainSubstring(`a cross-site request from origin "https://evil.example"`))
		Expect(msg).To(ContainSubstring("--allow-origin https://evil.example"))
		// The same body without the browser's headers: still not JSON.
		status, msg, _ = post(s.url, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") })
		Expect(status).To(Equal(http.StatusUnsupportedMediaType))
		Expect(msg).To(ContainSubstring(`has Content-Type "text/plain"; serve takes JSON bodies only`))
		code, out, stderr := s.stop()
		Expect(got.Load()).To(BeZero(), "the live model was called")
		Expect(code).To(Equal(1), out+stderr)
		Expect(visible(dir)).To(Equal(before))
	})

	It("with --allow-origin, serves an agent running in a browser at that origin: preflight, CORS, the replay", func() {
		const origin = "http://localhost:5173"
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent", "--allow-origin", origin)
		req, err := http.NewRequest(http.MethodOptions, s.url+"/chat/completions", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-stainless-os,agentsnap-session")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNoContent))
		Expect(resp.Header.Get("Access-Control-Allow-Origin")).To(Equal(origin))
		Expect(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))).To(And(ContainSubstring("x-stainless-os"), ContainSubstring("agentsnap-session")))

		var allowed atomic.Int64
		a, prompts := goAgent(s.url, serveFixture, option.WithHeader("Origin", origin),
			option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
				resp, err := next(r)
				if err == nil && resp.Header.Get("Access-Control-Allow-Origin") == origin {
					allowed.Add(1)
				}
				return resp, err
			}))
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(allowed.Load()).To(BeEquivalentTo(6), "answers marked readable for the origin")
	})

	It("refuses an agent at another origin, telling it the flag", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent", "--allow-origin", "http://localhost:5173")
		a, prompts := goAgent(s.url, serveFixture, option.WithHeader("Origin", "http://localhost:3000"))
		err := a.Run(context.Background(), prompts)
		var apiErr *openai.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusForbidden))
		Expect(apiErr.Message).To(ContainSubstring("--allow-origin http://localhost:3000")) // what the SDK shows
		code, _, _ := s.stop()
		Expect(code).To(Equal(1))
	})

	It("refuses a body over --max-body, by its Content-Length before reading it, and chunked as it crosses the limit", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent", "--max-body", "4KiB")
		big := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", 8<<10) + `"}]}`
		status, msg, _ := post(s.url, func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(big)), int64(len(big))
		})
		Expect(status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(msg).To(Equal(fmt.Sprintf("agentsnap serve: the request body is %d bytes (its Content-Length), more than serve's limit of 4KiB; raise it with --max-body SIZE, such as --max-body 16KiB", len(big))))
		// Chunked, the wire handler reads it and fails on the limit; the
		// guard's 413 answers for it.
		status, msg, _ = post(s.url, func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(big)), -1
		})
		Expect(status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(msg).To(HavePrefix("agentsnap serve: the request body is larger (it was sent without a Content-Length), more than serve's limit of 4KiB"))
		code, _, stderr := s.stop()
		Expect(code).To(Equal(1))
		Expect(stderr).To(ContainSubstring("(413): the request body is"))
	})

	It("refuses a 500 MB body by default without asking the client for it", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		var read atomic.Bool
		req, err := http.NewRequest(http.MethodPost, s.url+"/chat/completions", readerFunc(func([]byte) (int, error) {
			read.Store(true)
			return 0, errors.New("the body was read")
		}))
		Expect(err).NotTo(HaveOccurred())
		req.ContentLength = 500_000_000
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Expect", "100-continue")
		resp, err := (&http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Hour}}).Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(read.Load()).To(BeFalse())
		s.stop()
	})

	DescribeTable("refuses bad --allow-origin and --max-body values",
		func(flag, value, msg string) {
			r := cli("", nil, "serve", serveFixture, "--runtime", "go-agent", flag, value)
			Expect(r.code).To(Equal(2))
			Expect(r.stderr).To(ContainSubstring(msg))
			Expect(r.stdout).To(BeEmpty())
		},
		Entry("any origin", "--allow-origin", "*", `invalid value "*" for flag -allow-origin: origin "*" would allow any web page; give an exact origin scheme://host[:port], such as http://localhost:5173`),
		Entry("an origin with a path", "--allow-origin", "http://localhost:5173/app", "has more than a scheme, host and port"),
		Entry("a limit over 1GiB", "--max-body", "2GiB", `invalid value "2GiB" for flag -max-body: size "2GiB" is more than the largest body serve takes, 1GiB`),
		Entry("a limit under 1KiB", "--max-body", "100", "less than the smallest limit, 1KiB"),
		Entry("no number", "--max-body", "lots", "is not a number of bytes"),
	)

	It("explains what it refuses and the flags that allow more", func() {
		r := cli("", nil, "help", "serve")
		Expect(r.code).To(Equal(0))
		for _, s := range []string{"DNS rebinding", "--allow-origin", "--max-body", "421", "403", "415", "413", "408"} {
			Expect(r.stdout).To(ContainSubstring(s))
		}
		Expect(r.stdout).To(MatchRegexp(`\(default\s+32MiB\)`), "the flags section wraps where it must")
	})
})

// readerFunc is an io.Reader from a function.
type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

var _ = Describe("agentsnap serve's terminal and the paths clients ask for", func() {
	It("shows a path with an ESC or a line break escaped, in a refusal's note and in the verdict's error for a stray request", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		base := strings.TrimSuffix(s.url, "/v1")
		// A web page's no-cors POST: refused by the guard, noted at once.
		status, _, _ := postJSON(base+"/v1/%1b%5b2J%1b%5b31mforged%0arecorded%20all%0d", chatBody, func(r *http.Request) {
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Content-Type", "text/plain")
		})
		Expect(status).To(Equal(http.StatusForbidden))
		// Another local process: past the guard, a call serve does not
		// serve, named when serve stops.
		status, _, _ = postJSON(base+"/v1/%1b%5d0;title%07", chatBody, nil)
		Expect(status).To(Equal(http.StatusNotFound))
		status, _, _ = postJSON(base+"/v1beta/models/%1b%5b2Jm:countTokens", `{}`, nil)
		Expect(status).To(Equal(http.StatusBadRequest))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		// As the client escaped it: the note on stderr, the verdict's
		// replay errors on stdout.
		Expect(stderr).To(ContainSubstring("note: refused POST /v1/%1b%5b2J%1b%5b31mforged%0arecorded%20all%0d (403)"))
		Expect(out).To(ContainSubstring("wire: POST /v1/%1b%5d0;title%07 is not a model call agentsnap serves"))
		Expect(out).To(ContainSubstring("wire: POST /v1beta/models/%1b%5b2Jm:countTokens: "))
		for _, text := range []string{out, stderr} {
			Expect(text).NotTo(ContainSubstring("\x1b"))
			Expect(text).NotTo(ContainSubstring("\r"))
		}
	})

	It("shows an MCP method with an ESC escaped in the error that fails a recording", func() {
		_, _, s := recordWithMCPDown()
		status, body, _ := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":7,"method":"\u001b[2Jtools/call","params":{}}`, nil)
		Expect(status).To(Equal(http.StatusBadGateway), body)
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(stderr).To(ContainSubstring(`  \x1b[2Jtools/call to server "clock" (session root): `))
		Expect(stderr).NotTo(ContainSubstring("\x1b"))
	})

	It("shows a model name or a message with an ESC or a line break escaped in the verdict, as check does", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		status, body := chatPost(s.url, `{"model":"\u001b[2Jm","messages":[{"role":"system","content":"You are terse."},`+
			`{"role":"user","content":"The codeword is \u001b[31mRED\r\nforged. Reply OK."}]}`, nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(out).To(ContainSubstring(`the model changed from playbook/go-agent-model to playbook/\x1b[2Jm;`))
		Expect(out).To(ContainSubstring(`+  user: The codeword is \x1b[31mRED\r`))
		Expect(out).NotTo(ContainSubstring("\x1b"))
		Expect(out).NotTo(ContainSubstring("\r"))
	})
})

var _ = Describe("serve's recorded-tool endpoint and a web page", func() {
	It("is guarded as the model endpoint is: a web page's POST, a WebSocket, a rebinding Host never ask for the tool", func() {
		dir := playbookScenario(`{"toolCalls": [{"id": "call_1", "name": "lookup", "arguments": {"key": "owner"}}]}, {"text": "done"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		DeferCleanup(func() { s.stop() })
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		tool := strings.TrimSuffix(s.url, "/v1") + toolPath
		call := `{"name": "lookup", "arguments": "{\"key\":\"owner\"}"}`
		_, p, _ := strings.Cut(hostPort(s.url), ":")
		for _, attack := range []struct {
			status int
			edit   func(*http.Request)
		}{
			{http.StatusForbidden, func(r *http.Request) {
				r.Header.Set("Origin", "https://evil.example")
				r.Header.Set("Content-Type", "text/plain")
			}},
			{http.StatusForbidden, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }},
			{http.StatusUnsupportedMediaType, func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }},
			{http.StatusMisdirectedRequest, func(r *http.Request) { r.Host = "rebind.evil.example:" + p }},
			{http.StatusForbidden, func(r *http.Request) { // a WebSocket from a page
				r.Method = http.MethodGet
				r.Header.Set("Origin", "https://evil.example")
				r.Header.Set("Connection", "Upgrade")
				r.Header.Set("Upgrade", "websocket")
				r.Header.Set("Sec-WebSocket-Version", "13")
				r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			}},
		} {
			status, body, _ := postJSON(tool, call, attack.edit)
			Expect(status).To(Equal(attack.status), body)
			Expect(body).NotTo(ContainSubstring(`"run"`))
		}
		// The call was not asked for: the agent's own ask is told to run it.
		status, body, _ = postJSON(tool, call, nil)
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(body).To(MatchJSON(`{"run": true, "id": "call_1"}`))
	})
})
