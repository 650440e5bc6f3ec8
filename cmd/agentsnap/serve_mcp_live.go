package main

// Forwarding a request to the live MCP server while recording, and reading
// its answer.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// mcpAnswer is a live server's answer to one request.
type mcpAnswer struct {
	Result json.RawMessage
	Error  *session.MCPError
}

// forward POSTs the agent's message to the live server, on the live
// session it belongs on, and, for a request (id set), returns the
// server's answer to it (readAnswer).
func (e *mcpEndpoint) forward(r *http.Request, name, live string, body []byte, method string, id json.RawMessage) (*mcpAnswer, error) {
	fail := func(format string, args ...any) (*mcpAnswer, error) {
		return nil, fmt.Errorf("the live MCP server %s (%s): "+format+"; check that it runs and that --mcp %s= names its Streamable HTTP endpoint", append(append([]any{name, live}, args...), name)...)
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, live, bytes.NewReader(body))
	if err != nil {
		return fail("%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// The MCP headers (Mcp-Protocol-Version, Mcp-Method, Mcp-Name,
	// Mcp-Param-*) say what the body does; serve holds the live session.
	for k, v := range r.Header {
		if strings.HasPrefix(k, "Mcp-") && k != "Mcp-Session-Id" || k == "Authorization" {
			req.Header[k] = v
		}
	}
	key, err := e.onSession(req, r.Header, name, live, method)
	if err != nil {
		return nil, err
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return fail("%v", err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		e.noteSession(key, name, live, method, sid, r.Header, req.Header)
	}
	return e.readAnswer(resp, id, fail)
}

// onSession puts req, the agent's message with headers h, on the live
// session of server name it belongs on (none for an initialize, which
// starts one), and returns that session's key. It refuses the message
// (unclearSession) when more than one could be its.
func (e *mcpEndpoint) onSession(req *http.Request, h http.Header, name, live, method string) (string, error) {
	key := e.key(name, h)
	ours := key != liveKey(name, h)
	e.mu.Lock()
	defer e.mu.Unlock()
	sid, own := e.sessions[key]
	opened := e.opens[key]
	if !own {
		sid, opened = e.sessions[name], e.opens[name]
	}
	if sid == "" || method == "initialize" {
		return key, nil
	}
	if !ours && opened > 1 {
		return "", &unclearSession{method: method, server: name, session: mcpSessionName(h), sent: h.Get("Mcp-Session-Id"), opened: opened}
	}
	req.Header.Set("Mcp-Session-Id", sid)
	e.keep(name, live, sid, req.Header)
	return key, nil
}

// noteSession keeps sid, the live session the server named in its answer
// to a message of the agent's (headers h, sent with header), under the
// session's key; after an initialize, also under its agent session's, for
// a client that does not send serve's id back.
func (e *mcpEndpoint) noteSession(key, name, live, method, sid string, h, header http.Header) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sessions[key], e.sessions[name] = sid, sid
	if method == "initialize" {
		hk := liveKey(name, h)
		e.sessions[hk] = sid
		if e.opens == nil {
			e.opens = map[string]int{}
		}
		e.opens[hk]++
		e.opens[name]++
	}
	e.keep(name, live, sid, header)
}

// readAnswer reads the live server's answer to the message forward sent:
// for a request (id set), the one JSON response, or the one in its event
// stream with that id; nil for a notification. What else the server
// streams (its notifications and requests) is not relayed. An HTTP error
// is a failure unless it carries the JSON-RPC error answering the request.
func (e *mcpEndpoint) readAnswer(resp *http.Response, id json.RawMessage, fail func(string, ...any) (*mcpAnswer, error)) (*mcpAnswer, error) {
	rd := io.LimitReader(resp.Body, e.maxBody)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode/100 != 2:
		// An HTTP error may carry the JSON-RPC error the server answers
		// the request with: that is its answer, and is recorded.
		b, _ := io.ReadAll(rd)
		if a, ok, _ := answerTo(b, id); ok && id != nil && a.Error != nil {
			return a, nil
		}
		return fail("answered %s: %s", resp.Status, strings.TrimSpace(string(b[:min(len(b), 512)])))
	case id == nil:
		return nil, nil
	case mt == "text/event-stream":
		return e.fromStream(rd, id, fail)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return fail("reading its answer: %v", err)
	}
	a, ok, err := answerTo(b, id)
	if err != nil || !ok {
		return fail("its answer is no JSON-RPC response to the request (%v)", err)
	}
	return a, nil
}

// keep notes the live session sid of server name, and the headers of the
// request sent on it, for endSessions. The caller holds e.mu.
func (e *mcpEndpoint) keep(name, live, sid string, header http.Header) {
	h := http.Header{}
	for _, k := range []string{"Authorization", "Mcp-Protocol-Version"} {
		if v := header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	if e.opened == nil {
		e.opened = map[[2]string]liveSession{}
	}
	e.opened[[2]string{name, sid}] = liveSession{url: live, header: h}
}

// fromStream reads an event stream up to the response with id.
func (e *mcpEndpoint) fromStream(rd io.Reader, id json.RawMessage, fail func(string, ...any) (*mcpAnswer, error)) (*mcpAnswer, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), int(e.maxBody))
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
				data = append(data, '\n')
			}
			continue
		}
		if a, ok, _ := answerTo(data, id); ok {
			return a, nil
		}
		data = data[:0]
	}
	if a, ok, _ := answerTo(data, id); ok {
		return a, nil
	}
	return fail("its event stream ended without the answer to the request (%v)", sc.Err())
}

// answerTo decodes b as the response to the request id; ok is false when
// it is another message.
func answerTo(b []byte, id json.RawMessage) (*mcpAnswer, bool, error) {
	var m struct {
		ID     json.RawMessage   `json:"id"`
		Result json.RawMessage   `json:"result"`
		Error  *session.MCPError `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, false, err
	}
	if !bytes.Equal(session.CanonicalJSON(m.ID), session.CanonicalJSON(id)) || (m.Result == nil && m.Error == nil) {
		return nil, false, nil
	}
	return &mcpAnswer{Result: m.Result, Error: m.Error}, true, nil
}
