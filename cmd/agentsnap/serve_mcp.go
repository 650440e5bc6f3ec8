package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// mcpPath is where serve's MCP endpoints are: the server NAME's is
// mcpPath+NAME, beside the model endpoint's /v1.
const mcpPath = "/mcp/"

// mcpEndpoint answers the agent's MCP requests on serve's Streamable HTTP
// endpoints through the wire handler, which records each in the log of
// the session its Agentsnap-* headers name: while recording it forwards
// them to the live server (--mcp); in a replay the recording answers and
// no server is asked. Every POST is answered in its response; each
// initialize gets an Mcp-Session-Id of serve's, which names the agent's
// MCP client, and so its live session, whatever lineage headers it sends.
type mcpEndpoint struct {
	h         *wire.Handler
	recording bool              // no replay: the live servers answer
	servers   map[string]string // --mcp, by name
	client    *http.Client
	maxBody   int64 // the largest answer read from a live server

	mu sync.Mutex
	// sessions holds the live servers' Mcp-Session-Ids: by key, one per
	// server and agent MCP client — a subagent that connects a client of
	// its own initializes again, which a live session refuses; a child
	// that shares its parent's client sends that client's id — and by
	// the server's name alone the latest, for a request with neither.
	sessions map[string]string
	// clients holds the Mcp-Session-Ids serve gave the agent's clients.
	clients map[string]bool
	// opens counts the live sessions opened by an initialize, by
	// liveKey and by server name: a request routed there without serve's
	// id, with more than one, may go on another client's.
	opens map[string]int
	logf  func(format string, args ...any) // notes a refused request
	// opened holds every live session serve opened, by server name and
	// session id: ended when serve stops (endSessions), whichever agent
	// session used it last.
	opened map[[2]string]liveSession
	// inits holds, by key and by the server's name, the initialize an
	// only-changed recording answered from the recording (its session
	// still replayed), for the live session a later request recorded anew
	// needs: it is sent first.
	inits map[string][]byte
	// started holds, by key, the live sessions startLive started: a
	// server without sessions (no Mcp-Session-Id) has no other trace of
	// them, and its handshake is not sent again.
	started map[string]bool
	failed  []string // the requests no live server answered, while recording
	unclear []string // those refused: no live session could be told theirs
	unnamed []string // the servers asked that no --mcp names, while recording
}

// err fails a recording in which a live server did not answer a request:
// its log would lack the request, and its replay would fail on it.
func (e *mcpEndpoint) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	if len(e.failed) > 0 {
		errs = append(errs, fmt.Errorf("%d MCP request(s) got no answer from the live server, so the recording would lack them:\n  %s\nstart the server, or fix its --mcp NAME=URL, and record again",
			len(e.failed), strings.Join(e.failed, "\n  ")))
	}
	if len(e.unnamed) > 0 {
		flags := make([]string, len(e.unnamed))
		for i, n := range e.unnamed {
			flags[i] = "--mcp " + n + "=URL"
		}
		errs = append(errs, fmt.Errorf("the agent asked MCP server %s, which no --mcp names (named: %s), so the recording would lack its answers; record again with %s",
			strings.Join(e.unnamed, ", "), serverNames(e.servers), strings.Join(flags, " ")))
	}
	if len(e.unclear) > 0 {
		errs = append(errs, fmt.Errorf("%d MCP message(s) were refused, so the recording would not be what the agent does:\n  %s\nsend the Mcp-Session-Id serve gives at initialize back on every request, and record again",
			len(e.unclear), strings.Join(e.unclear, "\n  ")))
	}
	return errors.Join(errs...)
}

// noteUnnamed keeps a server the agent asked that no --mcp names, once,
// and notes the refusal on stderr.
func (e *mcpEndpoint) noteUnnamed(name, why string) {
	e.mu.Lock()
	first := !slices.Contains(e.unnamed, name)
	if first {
		e.unnamed = append(e.unnamed, name)
	}
	e.mu.Unlock()
	if first && e.logf != nil {
		e.logf("refused: %s", why)
	}
}

// refuseUnclear answers a message forward refused (unclearSession) with
// 400, and fails the recording naming it: the agent was told no, which a
// replay (no live server, nothing to tell apart) would not tell it.
func (e *mcpEndpoint) refuseUnclear(w http.ResponseWriter, id json.RawMessage, u *unclearSession) {
	why := u.Error()
	e.mu.Lock()
	e.unclear = append(e.unclear, why)
	e.mu.Unlock()
	if e.logf != nil {
		e.logf("refused: %s", why)
	}
	mcpRefuse(w, http.StatusBadRequest, id, why)
}

// methodListen is the request of an MCP client that listens for the
// server's notifications (protocol 2026-07-28; the Go SDK's with a
// list-changed handler).
const methodListen = "subscriptions/listen"

// jsonrpcMessage is one JSON-RPC 2.0 message as the agent sent it.
type jsonrpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (e *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, mcpPath)
	if !mcpName(name) {
		mcpRefuse(w, http.StatusNotFound, nil, fmt.Sprintf("%s is no MCP endpoint; serve's are %sNAME, NAME the server's", r.URL.Path, mcpPath))
		return
	}
	if r.Method != http.MethodPost {
		// No stream of the server's own (GET), and a client's DELETE of
		// the session serve gave it is refused (both are optional in
		// Streamable HTTP): serve ends the live sessions when it stops.
		w.Header().Set("Allow", http.MethodPost)
		mcpRefuse(w, http.StatusMethodNotAllowed, nil, fmt.Sprintf("%s %s: serve's MCP endpoints take POST only", r.Method, r.URL.Path))
		return
	}
	live, known := e.servers[name]
	if e.recording && !known {
		why := fmt.Sprintf("no live MCP server is named %s; record with --mcp %s=URL (named: %s)", name, name, serverNames(e.servers))
		e.noteUnnamed(name, why)
		mcpRefuse(w, http.StatusNotFound, nil, why)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		mcpRefuse(w, http.StatusBadRequest, nil, "reading the request: "+err.Error())
		return
	}
	msg, err := decodeMCP(body)
	if err != nil {
		mcpRefuse(w, http.StatusBadRequest, nil, fmt.Sprintf("POST %s: %v", r.URL.Path, err))
		return
	}
	// A credential sent for the live server is a secret of the recording.
	secret.FromContext(r.Context()).AddRequest(r, "the agent's MCP request")
	if msg.Method == methodListen && len(msg.ID) > 0 {
		// A live server holds a listen open, answering only when the
		// client cancels it, and sends on it what a recording does not
		// hold: told it is not relayed, recording or replaying alike,
		// the agent goes on without the notifications in both.
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601,
			"message": fmt.Sprintf("agentsnap serve: %s to server %s is not relayed: a recording holds no messages of the server's own, so a replay could send none; the agent gets no list-changed notifications, recording or replaying", methodListen, name)}})
		writeMCP(w, r, http.StatusOK, b)
		return
	}
	if msg.Method == "initialize" && len(msg.ID) > 0 {
		// A client of its own: its requests come with this id from here
		// on, as a Streamable HTTP client sends a server's session id.
		id := e.newClient()
		w.Header().Set("Mcp-Session-Id", id)
		r.Header.Set("Mcp-Session-Id", id)
	}
	if msg.Method == "" || len(msg.ID) == 0 {
		e.passOn(w, r, name, live, body, msg.Method)
		return
	}
	e.call(w, r, name, live, body, msg)
}

// passOn answers a notification, or the agent's answer to the server: not
// recorded, passed on while recording — but for a client whose handshake
// an only-changed recording replayed, dropped until its live session
// starts (initReplayed), as a replay drops it.
func (e *mcpEndpoint) passOn(w http.ResponseWriter, r *http.Request, name, live string, body []byte, method string) {
	if e.recording && !e.initReplayed(name, r.Header) {
		if _, err := e.forward(r, name, live, body, method, nil); err != nil {
			if u := (*unclearSession)(nil); errors.As(err, &u) {
				e.refuseUnclear(w, nil, u)
				return
			}
			mcpRefuse(w, http.StatusBadGateway, nil, secret.FromContext(r.Context()).Redact(err.Error()))
			return
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

// call answers one request through the wire handler.
func (e *mcpEndpoint) call(w http.ResponseWriter, r *http.Request, name, live string, body []byte, msg *jsonrpcMessage) {
	var sendErr error
	sent := false
	send := func(context.Context) (json.RawMessage, *session.MCPError, error) {
		sent = true
		if err := e.startLive(r, name, live, msg.Method); err != nil {
			sendErr = err
			return nil, nil, err
		}
		resp, err := e.forward(r, name, live, body, msg.Method, msg.ID)
		if err != nil {
			sendErr = err
			return nil, nil, err
		}
		return resp.Result, resp.Error, nil
	}
	if !e.recording {
		send = nil // a replay asks no server
	}
	rec, err := e.h.MCP(r.Context(), r.Header, name, msg.Method, msg.Params, send)
	if e.recording && !sent && err == nil && msg.Method == "initialize" {
		key := e.key(name, r.Header)
		e.mu.Lock()
		e.inits[key], e.inits[liveKey(name, r.Header)], e.inits[name] = body, body, body
		e.mu.Unlock()
	}
	u := (*unclearSession)(nil)
	switch {
	case errors.As(sendErr, &u):
		e.refuseUnclear(w, msg.ID, u)
		return
	case sendErr != nil:
		why := secret.FromContext(r.Context()).Redact(sendErr.Error())
		e.mu.Lock()
		e.failed = append(e.failed, fmt.Sprintf("%s to server %q (session %s): %s", msg.Method, name, mcpSessionName(r.Header), why))
		e.mu.Unlock()
		mcpRefuse(w, http.StatusBadGateway, msg.ID, why)
		return
	case err != nil:
		mcpRefuse(w, http.StatusBadRequest, msg.ID, err.Error())
		return
	}
	out := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
	if rec.Error != nil {
		out["error"] = rec.Error
	} else {
		out["result"] = rec.Result
	}
	b, err := json.Marshal(out)
	if err != nil {
		mcpRefuse(w, http.StatusInternalServerError, msg.ID, "encoding the answer: "+err.Error())
		return
	}
	writeMCP(w, r, http.StatusOK, b)
}

// decodeMCP reads one JSON-RPC message.
func decodeMCP(body []byte) (*jsonrpcMessage, error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		return nil, errors.New("a JSON-RPC batch; send one message per POST, as MCP's Streamable HTTP transport does")
	}
	var m jsonrpcMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("the body is no JSON-RPC message: %v", err)
	}
	if m.JSONRPC != "2.0" {
		return nil, fmt.Errorf(`the body has "jsonrpc": %q; want "2.0"`, m.JSONRPC)
	}
	if string(m.ID) == "null" {
		m.ID = nil
	}
	return &m, nil
}

// writeMCP writes one JSON-RPC message: as JSON, or as a one-event stream
// to an agent that accepts only streams.
func writeMCP(w http.ResponseWriter, r *http.Request, status int, b []byte) {
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if strings.Contains(accept, "text/event-stream") && !strings.Contains(accept, "application/json") {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(status)
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
		return
	}
	writeMCPJSON(w, status, b)
}

// writeMCPJSON writes b, one JSON value, as the body, ended by a newline.
func writeMCPJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// mcpRefuse answers with a JSON-RPC error (code -32600, invalid request,
// or -32603, internal error, for a status of 500 and more; the id when it
// is known) whose message says why.
func mcpRefuse(w http.ResponseWriter, status int, id json.RawMessage, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	code := -32600
	if status >= 500 {
		code = -32603
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": "agentsnap serve: " + message}})
	writeMCPJSON(w, status, b)
}
