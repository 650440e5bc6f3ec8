package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// recordWithMCPDown starts serve --record of a one-answer playbook
// scenario, its MCP server "clock" answering every request 503, and
// returns the scenario's folder and the MCP server's URL.
func recordWithMCPDown() (dir, mcpURL string, s *serving) {
	u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	})
	dir = playbookScenario(`{"text": "OK"}`)
	return dir, u.URL, startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "clock="+u.URL)
}

var _ = Describe("serve --record when the live MCP server fails a request", func() {
	It("fails the recording naming the request and the server, and leaves the fixture unchanged", func() {
		dir, mcpURL, s := recordWithMCPDown()
		status, body, _ := mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Header.Set("Agentsnap-Session", "root") })
		Expect(status).To(Equal(http.StatusBadGateway), body)
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(stderr).To(ContainSubstring(`1 MCP request(s) got no answer from the live server, so the recording would lack them:` + "\n" +
			`  tools/call to server "clock" (session "root"): the live MCP server clock (` + mcpURL + `): answered 503 Service Unavailable: down for maintenance`))
		Expect(stderr).To(ContainSubstring("start the server, or fix its --mcp NAME=URL, and record again; the fixture is unchanged"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile(), "a recording without the request would not replay")
	})
})

// sessionfulUpstream is a live MCP server as the SDKs make it: each
// initialize opens a session of its own (live-1, live-2, ...), and any
// other request gets an empty result.
func sessionfulUpstream() *upstream {
	var opened atomic.Int32
	return newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
		switch method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("live-%d", opened.Add(1)))
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"serverInfo":{"name":"clock","version":"v1"}}}`, id)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, id)
		}
	})
}

var _ = Describe("serve --record when a subagent connects an MCP client of its own", func() {
	It("starts a live session for each initialize, and sends each agent session's requests on its own", func() {
		u := sessionfulUpstream()
		s, child := recordMCPChild(u.URL)
		var status int
		var body string
		status, body, _ = mcpPost(s.url, "clock", toolsCall, child)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body = chatPost(s.url, `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Tick."}]}`, child)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body, _ = mcpPost(s.url, "clock", toolsCall, nil)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body = chatPost(s.url, chatJSON(`{"role":"assistant","tool_calls":[{"id":"call_h","type":"function","function":{"name":"subagent_spawn","arguments":"{\"prompt\":\"Tick.\"}"}}]}`, `{"role":"tool","tool_call_id":"call_h","content":"ticked"}`), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)

		got, _ := u.requests()
		Expect(got).To(HaveLen(6))
		Expect(got[1].Header.Get("Mcp-Session-Id")).To(BeEmpty(), "the subagent's initialize opens a live session of its own")
		Expect(got[2].Header.Get("Mcp-Session-Id")).To(Equal("live-2"), "the subagent's request goes on its session")
		Expect(got[3].Header.Get("Mcp-Session-Id")).To(Equal("live-1"), "and the root's on the root's")
		Expect(ended(got[4:])).To(ConsistOf("live-1", "live-2"), "serve ends both when it stops")
	})
})

// ended returns the Mcp-Session-Id of each DELETE among reqs.
func ended(reqs []*http.Request) []string {
	var ids []string
	for _, r := range reqs {
		if r.Method == http.MethodDelete {
			ids = append(ids, r.Header.Get("Mcp-Session-Id"))
		}
	}
	return ids
}

// sessionEnder is a live MCP server that answers initialize with a new
// live session, a DELETE as onDelete does, and anything else with an
// empty result.
func sessionEnder(onDelete func(w http.ResponseWriter)) *upstream {
	var opened atomic.Int32
	return newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
		switch {
		case method == "initialize":
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("live-%d", opened.Add(1)))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"serverInfo":{"name":"clock","version":"v1"}}}`, id)
		case len(id) == 0 && method == "":
			onDelete(w)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, id)
		}
	})
}

// openMCPSession opens a live session of the MCP server "clock" through
// serve at serveURL, with an Authorization and a protocol version, calls a
// tool on it and makes the scenario's one model call.
func openMCPSession(serveURL string) {
	GinkgoHelper()
	withAuth := func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer mcp-token-0123456789")
		r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	status, body, _ := mcpPost(serveURL, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, withAuth)
	Expect(status).To(Equal(http.StatusOK), body)
	status, body, _ = mcpPost(serveURL, "clock", toolsCall, withAuth)
	Expect(status).To(Equal(http.StatusOK), body)
	status, body = chatPost(serveURL, chatJSON(), nil)
	Expect(status).To(Equal(http.StatusOK), body)
}

var _ = Describe("serve --record stopped with live MCP sessions open", func() {
	record := func(u *upstream) *serving {
		s := startServe(nil, "serve", playbookScenario(`{"text": "OK"}`), "--record", "--runtime", "own-agent", "--mcp", "clock="+u.URL)
		openMCPSession(s.url)
		return s
	}

	It("ends each with a DELETE on its Mcp-Session-Id, with the agent's Authorization and protocol version, after the last request", func() {
		u := sessionEnder(func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) })
		s := record(u)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)
		got, _ := u.requests()
		Expect(got).To(HaveLen(3))
		Expect(got[2].Method).To(Equal(http.MethodDelete))
		Expect(got[2].Header.Get("Mcp-Session-Id")).To(Equal("live-1"))
		Expect(got[2].Header.Get("Authorization")).To(Equal("Bearer mcp-token-0123456789"))
		Expect(got[2].Header.Get("Mcp-Protocol-Version")).To(Equal("2025-06-18"))
		Expect(stderr).NotTo(ContainSubstring("did not end its session"))
	})
})

var _ = Describe("serve --record when the agent stops at the live MCP server's failure, before any model call", func() {
	It("says the MCP request failed, not that the agent never reached serve", func() {
		_, mcpURL, s := recordWithMCPDown()
		status, body, _ := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, nil)
		Expect(status).To(Equal(http.StatusBadGateway), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(stderr).To(ContainSubstring(`1 MCP request(s) got no answer from the live server, so the recording would lack them:` + "\n" +
			`  initialize to server "clock" (session root): the live MCP server clock (` + mcpURL + `): answered 503 Service Unavailable`))
		Expect(stderr).NotTo(ContainSubstring("no model call reached serve"), "the agent reached serve: its MCP request failed")
	})
})

var _ = Describe("serve --record --only-changed and the agent's MCP requests", func() {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	var (
		dir   string
		u     *upstream
		calls atomic.Int64
	)
	// session runs the go-agent's prompts between the root's MCP
	// handshake and a tools/call after its last turn.
	session := func(args ...string) (int, string) {
		GinkgoHelper()
		s := startServe(nil, append([]string{"serve", dir, "--runtime", "go-agent", "--mcp", "clock=" + u.URL}, args...)...)
		status, _, _ := mcpPost(s.url, "clock", initialize, nil)
		Expect(status).To(Equal(http.StatusOK))
		status, _, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		Expect(status).To(Equal(http.StatusAccepted))
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		status, body, _ := mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Header.Set("Mcp-Method", "tools/call") })
		Expect(status).To(Equal(http.StatusOK))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		return code, body
	}
	BeforeEach(func() {
		calls.Store(0)
		u = newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			switch method {
			case "initialize":
				w.Header().Set("Mcp-Session-Id", fmt.Sprintf("live-%d", calls.Add(1)))
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"serverInfo":{"name":"clock","version":"v1"}}}`, id)
			case "notifications/initialized":
				w.WriteHeader(http.StatusAccepted)
			case "tools/call": // the time: another answer each call
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"12:0%d"}]}}`, id, calls.Add(1))
			}
		})
		dir = copyFixture(scenario.File, fixture.PlaybookFile)
		_, body := session("--record")
		Expect(body).To(ContainSubstring("12:02"))
	})

	It("answers a session that still replays from the recording, and asks the live server nothing", func() {
		before := fixtureFiles(dir)
		_, sent := u.requests()
		_, body := session("--record", "--only-changed")
		Expect(body).To(ContainSubstring("12:02"), "the recorded answer")
		_, now := u.requests()
		Expect(now).To(Equal(sent), "the live server was asked")
		Expect(fixtureFiles(dir)).To(Equal(before))
	})

	It("asks the live server for a session recorded anew, starting the live session its replayed handshake did not", func() {
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, bytes.Replace(b, []byte("all at once."), []byte("all at once, please."), 1), 0o644)).To(Succeed())
		_, sent := u.requests()
		_, body := session("--record", "--only-changed", "--replace-golden")
		Expect(body).To(ContainSubstring("12:04"), "the live server's new answer")
		got, now := u.requests()
		// The DELETE last: serve ends the live session it opened when it stops.
		Expect(now[len(sent):]).To(Equal([]string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, toolsCall, ""}))
		Expect(got[len(got)-2].Header.Get("Mcp-Session-Id")).To(Equal("live-3"))
		Expect(got[len(got)-1].Method).To(Equal(http.MethodDelete))
		Expect(got[len(got)-1].Header.Get("Mcp-Session-Id")).To(Equal("live-3"))
		Expect(got[len(got)-4].Header.Get("Mcp-Method")).To(BeEmpty(), "the handshake is sent as the handshake")
		Expect(readFile(filepath.Join(dir, fixture.RootLog))).To(ContainSubstring("12:04"))
	})

	It("starts the live session of a client whose handshake replayed, not sending its request on the one another client opened live since", func() {
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, bytes.Replace(b, []byte("all at once."), []byte("all at once, please."), 1), 0o644)).To(Succeed())
		_, sent := u.requests()
		s := startServe(nil, "serve", dir, "--runtime", "go-agent", "--mcp", "clock="+u.URL, "--record", "--only-changed", "--replace-golden")
		status, _, hdr := mcpPost(s.url, "clock", initialize, nil) // answered from the recording
		Expect(status).To(Equal(http.StatusOK))
		first := func(r *http.Request) { r.Header.Set("Mcp-Session-Id", hdr.Get("Mcp-Session-Id")) }
		status, _, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, first)
		Expect(status).To(Equal(http.StatusAccepted))
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		status, _, _ = mcpPost(s.url, "clock", initialize, nil) // a second client, its session recorded anew: live-3
		Expect(status).To(Equal(http.StatusOK))
		status, body, _ := mcpPost(s.url, "clock", toolsCall, first)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		got, now := u.requests()
		// The two DELETEs last: serve ends both live sessions when it stops.
		Expect(now[len(sent):]).To(Equal([]string{initialize, initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, toolsCall, "", ""}))
		Expect(got[len(sent)+3].Header.Get("Mcp-Session-Id")).To(Equal("live-4"), "the first client's request on the live session its own handshake opened, not on live-3")
	})
})

var _ = Describe("serve --record --only-changed and a live MCP server without sessions", func() {
	It("sends the replayed handshake once, before the first request recorded anew, not before each", func() {
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			if len(id) == 0 {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "application/json") // and no Mcp-Session-Id: stateless
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"12:00"}]}}`, id)
		})
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		session := func(args ...string) {
			GinkgoHelper()
			s := startServe(nil, append([]string{"serve", dir, "--runtime", "go-agent", "--mcp", "clock=" + u.URL}, args...)...)
			status, _, hdr := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil)
			Expect(status).To(Equal(http.StatusOK))
			client := func(r *http.Request) { r.Header.Set("Mcp-Session-Id", hdr.Get("Mcp-Session-Id")) }
			status, _, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, client)
			Expect(status).To(Equal(http.StatusAccepted))
			Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
			for range 2 {
				status, body, _ := mcpPost(s.url, "clock", toolsCall, client)
				Expect(status).To(Equal(http.StatusOK), body)
			}
			code, out, stderr := s.stop()
			Expect(code).To(Equal(0), out+stderr)
		}
		session("--record")
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, bytes.Replace(b, []byte("all at once."), []byte("all at once, please."), 1), 0o644)).To(Succeed())
		_, sent := u.requests()
		session("--record", "--only-changed", "--replace-golden")
		_, now := u.requests()
		Expect(now[len(sent):]).To(Equal([]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, toolsCall, toolsCall}))
	})
})

var _ = Describe("serve --record when MCP clients send no lineage headers (--lineage infer)", func() {
	It("gives each client that initializes a session id of its own, and sends its requests, and those of a child sharing it, on its live session", func() {
		u := sessionfulUpstream()
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--lineage", "infer", "--mcp", "clock="+u.URL)
		// initialize connects a client as the MCP SDKs do, and returns
		// the session id serve gave it, which it sends from then on.
		initialize := func() func(*http.Request) {
			status, body, hdr := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, nil)
			Expect(status).To(Equal(http.StatusOK), body)
			sid := hdr.Get("Mcp-Session-Id")
			Expect(sid).NotTo(BeEmpty(), "serve gives the client a session of its own")
			return func(r *http.Request) { r.Header.Set("Mcp-Session-Id", sid) }
		}
		parent := initialize()
		helper := initialize() // a subagent's client of its own: the latest live session
		for _, client := range []func(*http.Request){parent, helper, parent} {
			status, body, _ := mcpPost(s.url, "clock", toolsCall, client)
			Expect(status).To(Equal(http.StatusOK), body)
		}
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)

		got, _ := u.requests()
		Expect(got).To(HaveLen(7))
		var on []string
		for _, r := range got[2:5] {
			on = append(on, r.Header.Get("Mcp-Session-Id"))
		}
		Expect(on).To(Equal([]string{"live-1", "live-2", "live-1"}), "each client's requests on its own live session, whichever initialized last")
		Expect(ended(got[5:])).To(ConsistOf("live-1", "live-2"))
	})

	// unclear is a live server whose initialize opens a session of its
	// own (live-1, live-2, ...); anything else gets an empty result.
	unclear := func() *upstream {
		var opened atomic.Int32
		return newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			if method == "initialize" {
				w.Header().Set("Mcp-Session-Id", fmt.Sprintf("live-%d", opened.Add(1)))
			}
			if len(id) == 0 {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
		})
	}

	It("refuses a request of a client that does not send its id back when several live sessions could be its, and fails the recording saying what to send", func() {
		u := unclear()
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--lineage", "infer", "--mcp", "clock="+u.URL)
		for range 2 { // two clients, neither of which sends its id back
			status, body, _ := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, nil)
			Expect(status).To(Equal(http.StatusOK), body)
		}
		const why = "tools/call to MCP server clock (session root) came without the Mcp-Session-Id header serve answered its client's initialize with, and 2 live sessions were opened there, so serve cannot tell which is this client's (the latest may be another client's); send the id serve gave back on every request, as MCP's Streamable HTTP clients (the MCP SDKs') do"
		status, body, _ := mcpPost(s.url, "clock", toolsCall, nil)
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(ContainSubstring(`"id":7`))
		Expect(rpcMessage(body)).To(ContainSubstring(why))
		status, body, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "stale-1") })
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(rpcMessage(body)).To(ContainSubstring(`notifications/initialized to MCP server clock (session root) came with Mcp-Session-Id "stale-1", which serve gave no client`))
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(stderr).To(ContainSubstring("2 MCP message(s) were refused, so the recording would not be what the agent does:\n  " + why))
		Expect(stderr).To(ContainSubstring("send the Mcp-Session-Id serve gives at initialize back on every request, and record again"))
		got, _ := u.requests()
		for _, r := range got {
			Expect(r.Method == http.MethodDelete || r.Header.Get("Mcp-Session-Id") == "").To(BeTrue(), "only the initializes and the DELETEs reached the live server")
		}
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})

	It("still routes a client that does not send its id back when one live session can be its: each agent session's own, by its headers", func() {
		u := unclear()
		s, child := recordMCPChild(u.URL)
		var status int
		var body string
		for _, edit := range []func(*http.Request){child, nil} {
			status, body, _ = mcpPost(s.url, "clock", toolsCall, edit)
			Expect(status).To(Equal(http.StatusOK), body)
		}
		status, body = chatPost(s.url, `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Tick."}]}`, child)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body = chatPost(s.url, chatJSON(`{"role":"assistant","tool_calls":[{"id":"call_h","type":"function","function":{"name":"subagent_spawn","arguments":"{\"prompt\":\"Tick.\"}"}}]}`, `{"role":"tool","tool_call_id":"call_h","content":"ticked"}`), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)
		got, _ := u.requests()
		Expect(got[2].Header.Get("Mcp-Session-Id")).To(Equal("live-2"), "the helper's on the session its initialize opened")
		Expect(got[3].Header.Get("Mcp-Session-Id")).To(Equal("live-1"), "the root's on its own, though live-2 is the latest")
	})
})

var _ = Describe("serve and an MCP client that listens for list changes (subscriptions/listen, protocol 2026-07-28)", func() {
	const listen = `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`
	expectRefused := func(status int, body string) {
		GinkgoHelper()
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(body).To(ContainSubstring(`"code":-32601`))
		Expect(rpcMessage(body)).To(ContainSubstring("agentsnap serve: subscriptions/listen to server clock is not relayed: a recording holds no messages of the server's own, so a replay could send none"))
	}

	It("answers it at once with an error while recording, never sending it to the live server, which would hold it open", func() {
		// A live server's listen: the acknowledgement, then nothing until
		// the client cancels (here the stream ends, so a serve that waits
		// fails instead of hanging).
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{}}\n\n")
		})
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "clock="+u.URL)
		status, body, _ := mcpPost(s.url, "clock", listen, nil)
		expectRefused(status, body)
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)
		got, _ := u.requests()
		Expect(got).To(BeEmpty())
		Expect(readFile(filepath.Join(dir, fixture.RootLog))).NotTo(ContainSubstring("subscriptions/listen"), "not recorded: a replay could send nothing on it")
	})

	It("answers it the same in a replay, which it does not fail", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		status, body, _ := mcpPost(s.url, "clock", listen, nil)
		expectRefused(status, body)
		Expect(runGoAgent(context.Background(), s.url, serveFixture)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)
	})
})

var _ = Describe("serve --record --session naming the first of two children one call created, whose MCP request comes before its first model call", func() {
	It("answers the sibling's MCP request, made before the named child asked the model, from the sibling's own recording", func() {
		var answered atomic.Int32
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"12:0%d"}]}}`, id, answered.Add(1))
		})
		dir := spawnScenario(`{"text": "one"}, {"text": "two"}`)
		child := spawnedBy
		// The root's call_h creates two children (root/call_h and
		// root/call_h#2); each asks the clock before it asks the model,
		// the second while the first has not asked the model yet.
		run := func(args ...string) (string, string) {
			GinkgoHelper()
			s := startServe(nil, append([]string{"serve", dir, "--runtime", "own-agent", "--record", "--mcp", "clock=" + u.URL}, args...)...)
			status, body := chatPost(s.url, chatJSON(), nil)
			Expect(status).To(Equal(http.StatusOK), body)
			status, body, _ = mcpPost(s.url, "clock", toolsCall, child("h1"))
			Expect(status).To(Equal(http.StatusOK), body)
			status, sibling, _ := mcpPost(s.url, "clock", toolsCall, child("h2"))
			Expect(status).To(Equal(http.StatusOK), sibling)
			status, body = chatPost(s.url, `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"First."}]}`, child("h1"))
			Expect(status).To(Equal(http.StatusOK), body)
			status, body = chatPost(s.url, `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Second."}]}`, child("h2"))
			Expect(status).To(Equal(http.StatusOK), body)
			status, body = chatPost(s.url, chatJSON(`{"role":"assistant","tool_calls":[{"id":"call_h","type":"function","function":{"name":"subagent_spawn","arguments":"{\"prompt\":\"Tick.\"}"}}]}`, `{"role":"tool","tool_call_id":"call_h","content":"ticked"}`), nil)
			Expect(status).To(Equal(http.StatusOK), body)
			code, out, stderr := s.stop()
			Expect(code).To(Equal(exitOK), out+stderr)
			return out, sibling
		}
		_, sibling := run()
		Expect(sibling).To(ContainSubstring("12:02"))
		out, sibling := run("--session", "root/call_h")
		Expect(sibling).To(ContainSubstring("12:02"), "the sibling's own recorded answer, not the named child's (12:01)")
		Expect(answered.Load()).To(Equal(int32(3)), "the live server answered the named child alone")
		Expect(out).To(ContainSubstring("kept as recorded: root, root/call_h#2"), "the sibling replays: --session named the other")
		Expect(out).NotTo(ContainSubstring("root/call_h#2: "))
	})
})

// recordMCPChild starts serve --record of a playbook whose root spawns a
// child (call_h) against the MCP server clock at url, and has the root's
// MCP client initialize, the root call the model, and the child's own MCP
// client initialize. It returns serve and the edit that names the
// child's requests.
func recordMCPChild(url string) (*serving, func(*http.Request)) {
	GinkgoHelper()
	dir := spawnScenario(`{"text": "ticked"}`)
	s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "clock="+url)
	child := spawnedBy("helper")
	status, body, _ := mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, nil)
	Expect(status).To(Equal(http.StatusOK), body)
	status, body = chatPost(s.url, chatJSON(), nil)
	Expect(status).To(Equal(http.StatusOK), body)
	status, body, _ = mcpPost(s.url, "clock", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, child)
	Expect(status).To(Equal(http.StatusOK), body)
	return s, child
}
