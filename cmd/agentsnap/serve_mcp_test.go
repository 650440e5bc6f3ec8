package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mcpPost POSTs a JSON-RPC body to serve's MCP endpoint of server name,
// edited by edit, and returns the status, the body and the headers.
func mcpPost(serveURL, name, body string, edit func(*http.Request)) (int, string, http.Header) {
	GinkgoHelper()
	return postJSON(strings.TrimSuffix(serveURL, "/v1")+"/mcp/"+name, body, func(r *http.Request) {
		r.Header.Set("Accept", "application/json, text/event-stream")
		if edit != nil {
			edit(r)
		}
	})
}

// rpcMessage is the error message of a JSON-RPC (or guard) error body.
func rpcMessage(body string) string {
	var m struct {
		Error struct{ Message string }
	}
	_ = json.Unmarshal([]byte(body), &m)
	return m.Error.Message
}

// upstream is a live MCP server that answers as told: by the method of
// each request. It keeps what it was sent.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	got  []*http.Request
	body []string
}

func newUpstream(answer func(w http.ResponseWriter, method string, id json.RawMessage)) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(b, &m)
		u.mu.Lock()
		u.got, u.body = append(u.got, r), append(u.body, string(b))
		u.mu.Unlock()
		answer(w, m.Method, m.ID)
	}))
	DeferCleanup(u.Close)
	return u
}

func (u *upstream) requests() ([]*http.Request, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*http.Request(nil), u.got...), append([]string(nil), u.body...)
}

const toolsCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"now","arguments":{"zone":"UTC"}}}`

var _ = Describe("serve's MCP endpoint", func() {
	It("fails a recording whose agent asked a server no --mcp names, saying which flag to add, though no model call came", func() {
		s := startServe(nil, "serve", copyFixture(), "--record", "--runtime", "go-agent")
		status, body, _ := mcpPost(s.url, "releases", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil)
		Expect(status).To(Equal(http.StatusNotFound))
		Expect(rpcMessage(body)).To(ContainSubstring("no live MCP server is named releases; record with --mcp releases=URL (named: none)"))
		code, _, stderr := s.stop()
		Expect(code).To(Equal(exitFail))
		Expect(stderr).To(ContainSubstring("agentsnap serve: note: refused: no live MCP server is named releases"))
		Expect(stderr).To(ContainSubstring("the agent asked MCP server releases, which no --mcp names (named: none), so the recording would lack its answers; record again with --mcp releases=URL"))
		Expect(stderr).NotTo(ContainSubstring("session tree"))
	})

	It("is guarded as the model endpoint is: Host, Origin, Content-Type, body size", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent", "--max-body", "1KiB")
		_, p, _ := strings.Cut(hostPort(s.url), ":")
		status, body, _ := mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Host = "rebind.evil.example:" + p })
		Expect(status).To(Equal(http.StatusMisdirectedRequest))
		Expect(rpcMessage(body)).To(ContainSubstring(`the request's Host is "rebind.evil.example:` + p + `"`))
		status, body, _ = mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") })
		Expect(status).To(Equal(http.StatusForbidden))
		Expect(rpcMessage(body)).To(ContainSubstring(`a cross-site request from origin "https://evil.example"`))
		status, body, _ = mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") })
		Expect(status).To(Equal(http.StatusUnsupportedMediaType))
		Expect(rpcMessage(body)).To(ContainSubstring("serve takes JSON bodies only"))
		status, body, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"`+strings.Repeat("x", 2048)+`"}}`, nil)
		Expect(status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(rpcMessage(body)).To(ContainSubstring("more than serve's limit of 1KiB"))
		_, _, stderr := s.stop()
		Expect(stderr).To(ContainSubstring("agentsnap serve: note: refused POST /mcp/clock (421)"))
	})

	It("takes one JSON-RPC message per POST, and POST only", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		base := strings.TrimSuffix(s.url, "/v1")
		resp, err := http.Get(base + "/mcp/clock")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusMethodNotAllowed))
		Expect(resp.Header.Get("Allow")).To(Equal("POST"))
		// An MCP client ending its session (the Agents SDK's close()) sends
		// a DELETE without a body or a Content-Type: 405, which the MCP
		// SDKs take as "the server does not end sessions", not a 415.
		del, err := http.NewRequest(http.MethodDelete, base+"/mcp/clock", nil)
		Expect(err).NotTo(HaveOccurred())
		del.Header.Set("Mcp-Session-Id", "agentsnap-1")
		resp, err = http.DefaultClient.Do(del)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusMethodNotAllowed))
		Expect(resp.Header.Get("Allow")).To(Equal("POST"))
		for body, want := range map[string]string{
			`[` + toolsCall + `]`:                   "a JSON-RPC batch; send one message per POST",
			`{"jsonrpc":"1.0","id":1,"method":"x"}`: `the body has "jsonrpc": "1.0"; want "2.0"`,
			`{"jsonrpc":`:                           "the body is no JSON-RPC message",
		} {
			status, got, _ := mcpPost(s.url, "clock", body, nil)
			Expect(status).To(Equal(http.StatusBadRequest), body)
			Expect(rpcMessage(got)).To(ContainSubstring(want))
		}
		status, got, _ := mcpPost(s.url, "a/b", toolsCall, nil)
		Expect(status).To(Equal(http.StatusNotFound))
		Expect(rpcMessage(got)).To(ContainSubstring("/mcp/a/b is no MCP endpoint"))
		status, _, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		Expect(status).To(Equal(http.StatusAccepted), "a notification")
		_, _, stderr := s.stop()
		Expect(stderr).NotTo(ContainSubstring("refused DELETE"))
	})

	It("in a replay, answers a request the recording lacks with an error that names it, and the replay fails", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		status, body, _ := mcpPost(s.url, "clock", toolsCall, nil)
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`"code":-32099`))
		Expect(rpcMessage(body)).To(ContainSubstring(`fakellm: unrecorded tool call: session root (session.jsonl): MCP request tools/call to server "clock" with params {"arguments":{"zone":"UTC"},"name":"now"}: the recording holds no answer to it`))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(1), out+stderr)
	})

	It("while recording, forwards each request to the live server --mcp names, and relays its answer", func() {
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			switch method {
			case "initialize":
				w.Header().Set("Mcp-Session-Id", "live-1")
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"serverInfo":{"name":"clock","version":"v1"}}}`, id)
			case "tools/call": // a stream: a notification of the server's own first
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\n", id)
				fmt.Fprint(w, "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"12:00\"}]}}\n\n")
			case "resources/read": // an HTTP error that carries the JSON-RPC error
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"no such resource"}}`, id)
			case "notifications/initialized":
				w.WriteHeader(http.StatusAccepted)
			default:
				http.Error(w, "down for maintenance", http.StatusInternalServerError)
			}
		})
		s := startServe(nil, "serve", copyFixture(), "--record", "--runtime", "go-agent", "--mcp", "clock="+u.URL)
		status, body, _ := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil)
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(MatchJSON(`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"clock","version":"v1"}}}`))
		status, _, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		Expect(status).To(Equal(http.StatusAccepted))
		status, body, hdr := mcpPost(s.url, "clock", toolsCall, func(r *http.Request) {
			r.Header.Set("Mcp-Method", "tools/call")
			r.Header.Set("Authorization", "Bearer mcp-token")
		})
		Expect(status).To(Equal(http.StatusOK))
		Expect(hdr.Get("Mcp-Session-Id")).To(BeEmpty(), "serve holds the live session; the agent has none")
		Expect(body).To(MatchJSON(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"12:00"}]}}`))
		status, body, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"x:y"}}`, nil)
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(MatchJSON(`{"jsonrpc":"2.0","id":"r","error":{"code":-32602,"message":"no such resource"}}`))
		status, body, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":9,"method":"prompts/list"}`, nil)
		Expect(status).To(Equal(http.StatusBadGateway))
		Expect(rpcMessage(body)).To(ContainSubstring("the live MCP server clock (" + u.URL + "): answered 500 Internal Server Error: down for maintenance; check that it runs"))
		status, body, _ = mcpPost(s.url, "calendar", toolsCall, nil)
		Expect(status).To(Equal(http.StatusNotFound))
		Expect(rpcMessage(body)).To(ContainSubstring("no live MCP server is named calendar; record with --mcp calendar=URL (named: clock)"))
		code, _, stderr := s.stop()
		Expect(stderr).To(ContainSubstring("agentsnap serve: note: the live MCP server clock did not end its session live-1 (it answered 500 Internal Server Error); it ends it itself when it times out"))
		Expect(code).To(Equal(exitFail))
		Expect(stderr).To(ContainSubstring("the agent asked MCP server calendar, which no --mcp names (named: clock), so the recording would lack its answers; record again with --mcp calendar=URL"))

		got, bodies := u.requests()
		Expect(got).To(HaveLen(6), "calendar was never asked")
		Expect(ended(got[5:])).To(Equal([]string{"live-1"}), "serve ends the live session when it stops")
		Expect(got[0].Header.Get("Mcp-Session-Id")).To(BeEmpty())
		Expect(got[2].Header.Get("Mcp-Session-Id")).To(Equal("live-1"), "the live session, kept by serve")
		Expect(got[2].Header.Get("Mcp-Method")).To(Equal("tools/call"))
		Expect(got[2].Header.Get("Authorization")).To(Equal("Bearer mcp-token"))
		Expect(bodies[2]).To(Equal(toolsCall), "the agent's message as it sent it")
	})

	It("takes --mcp names of a letter or digit and then up to 63 letters, digits, '.', '_' or '-'", func() {
		for _, name := range []string{"c", "9", "a.b_c-" + strings.Repeat("d", 58), "Z-9"} {
			m := mcpFlag{}
			Expect(m.Set(name+"=http://127.0.0.1:1/mcp")).To(Succeed(), name)
			Expect(m).To(HaveKey(name))
		}
	})

	It("refuses --mcp names that are no such name, saying what a name may hold", func() {
		for _, name := range []string{"", "-clock", ".c", "_c", strings.Repeat("a", 65), "a b", "caf\u00e9", "a/b", "a:b"} {
			m := mcpFlag{}
			Expect(m.Set(name+"=http://127.0.0.1:1/mcp")).To(MatchError(ContainSubstring("want NAME=URL, a NAME of letters, digits")), name)
		}
	})

	DescribeTable("refuses a bad --mcp",
		func(want string, args ...string) {
			r := cli("", nil, append([]string{"serve", serveFixture, "--runtime", "go-agent"}, args...)...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("without --record", "--only-changed, --session and --mcp only apply with --record", "--mcp", "clock=http://127.0.0.1:1/mcp"),
		Entry("no URL", `"clock": want NAME=URL`, "--record", "--mcp", "clock"),
		Entry("a name with a slash", `"a/b=http://x/": want NAME=URL`, "--record", "--mcp", "a/b=http://x/"),
		Entry("no http URL", `the URL "ftp://x/mcp" is no http(s) URL`, "--record", "--mcp", "clock=ftp://x/mcp"),
		Entry("a name twice", "the server clock is named twice", "--record", "--mcp", "clock=http://x/", "--mcp", "clock=http://y/"),
	)
})

var _ = Describe("the re-recording serve's replay verdict offers", func() {
	It("names --mcp NAME=URL for each MCP server the recording asked, which a recording refuses without", func() {
		ev := func(typ, data string) session.Event { return session.Event{Type: typ, Data: json.RawMessage(data)} }
		fx := &fixture.Fixture{Logs: []*session.Log{
			{Events: []session.Event{ev(session.TypeMCPCall, `{"server":"releases","method":"initialize"}`), ev(session.TypeUserMessage, `{"role":"user"}`)}},
			{Events: []session.Event{ev(session.TypeMCPCall, `{"server":"clock","method":"tools/call"}`), ev(session.TypeMCPCall, `{"server":"releases","method":"tools/call"}`)}},
		}}
		Expect(mcpFlagsOf(fx)).To(Equal(" --mcp clock=URL --mcp releases=URL"))
		Expect(mcpFlagsOf(&fixture.Fixture{Logs: fx.Logs[:0]})).To(BeEmpty())

		By("from the files of a fixture serve opened, which holds no logs")
		dir := copyFixture()
		path := filepath.Join(dir, "session.jsonl")
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		n := bytes.Count(b, []byte("\n")) - 1 // the header is no event
		b = fmt.Appendf(b, `{"type":"mcp/call","seq":%d,"time":0,"data":{"turn":1,"step":0,"server":"clock","method":"tools/list","params":{},"result":{}}}`+"\n", n)
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
		opened, err := fixture.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(opened.Logs).To(BeNil())
		Expect(mcpFlagsOf(opened)).To(Equal(" --mcp clock=URL"))
	})
})
