package main

// Which live session an agent's MCP request goes on while recording: the
// Mcp-Session-Id serve gives each MCP client, the keys of the live sessions,
// the one an only-changed recording starts late, and the refusal of a
// message that could be on more than one.

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/wire"
)

// newClient returns a new Mcp-Session-Id for an agent's MCP client.
func (e *mcpEndpoint) newClient() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.clients == nil {
		e.clients = map[string]bool{}
	}
	id := fmt.Sprintf("agentsnap-%d", len(e.clients)+1)
	e.clients[id] = true
	return id
}

// key keys the live session of server name for a request with headers h:
// its MCP client's, by the Mcp-Session-Id serve gave it; else, for a
// client that does not send it back, its agent session's (liveKey).
func (e *mcpEndpoint) key(name string, h http.Header) string {
	id := h.Get("Mcp-Session-Id")
	e.mu.Lock()
	ours := e.clients[id]
	e.mu.Unlock()
	if ours {
		return name + "\x00client\x00" + id
	}
	return liveKey(name, h)
}

// liveKey keys the live session of server name for the agent session h
// names (the root's without Agentsnap-Session).
func liveKey(name string, h http.Header) string {
	return name + "\x00" + h.Get(wire.HeaderSession)
}

// mcpSessionName names the session a request's headers name, for a message.
func mcpSessionName(h http.Header) string {
	if id := h.Get(wire.HeaderSession); id != "" {
		return fmt.Sprintf("%q", id)
	}
	return "root"
}

// initReplayed reports whether the live session of the agent session h
// names on server name is yet to start: its initialize was answered from
// the recording. Until it starts, the client's notifications are dropped
// (passOn), not kept for it: what the session sends while it replays is a
// replay's, which asks no server — the live server never gets its
// requests, so a notification about them (notifications/cancelled, a
// progress) would name what it never saw — and startLive sends the
// handshake's notifications/initialized itself. mcpsnap drops them alike.
func (e *mcpEndpoint) initReplayed(name string, h http.Header) bool {
	key := e.key(name, h)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started[key] {
		return false
	}
	if _, own := e.inits[key]; own {
		return e.sessions[key] == "" // another client's live session is not its own
	}
	return e.sessions[key] == "" && e.sessions[name] == "" && e.inits[name] != nil
}

// startLive starts the live session a request recorded anew needs when
// its agent session's initialize was answered from the recording (an
// only-changed recording): it sends that initialize, then the
// notification that ends the handshake.
func (e *mcpEndpoint) startLive(r *http.Request, name, live, method string) error {
	if method == "initialize" || !e.initReplayed(name, r.Header) {
		return nil
	}
	key := e.key(name, r.Header)
	e.mu.Lock()
	init := e.inits[key]
	if init == nil {
		init = e.inits[name]
	}
	e.mu.Unlock()
	msg, err := decodeMCP(init)
	if err != nil {
		return err
	}
	// The request's MCP headers that say what its body does are not the
	// handshake's.
	r = r.Clone(r.Context())
	for k := range r.Header {
		if k == "Mcp-Method" || k == "Mcp-Name" || strings.HasPrefix(k, "Mcp-Param-") {
			r.Header.Del(k)
		}
	}
	if _, err := e.forward(r, name, live, init, "initialize", msg.ID); err != nil {
		return err
	}
	if _, err := e.forward(r, name, live, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "notifications/initialized", nil); err != nil {
		return err
	}
	e.mu.Lock()
	if e.started == nil {
		e.started = map[string]bool{}
	}
	e.started[key] = true
	e.mu.Unlock()
	return nil
}

// unclearSession refuses a message to a live server that came without
// the Mcp-Session-Id serve gave its MCP client, while more than one live
// session could be the one it belongs on (several clients initialized
// for its agent session, or it has none and others did): sent on the
// latest, it may go on another client's, whose state (its protocol
// version, subscriptions, log level, what it was told) is not this
// client's, and the recording would keep what that session answered.
type unclearSession struct {
	method, server, session string
	sent                    string // the Mcp-Session-Id it came with, not serve's; "" for none
	opened                  int
}

func (u *unclearSession) Error() string {
	came := "without the Mcp-Session-Id header serve answered its client's initialize with"
	if u.sent != "" {
		came = fmt.Sprintf("with Mcp-Session-Id %q, which serve gave no client (serve answers each initialize with an id of its own)", u.sent)
	}
	return fmt.Sprintf("%s to MCP server %s (session %s) came %s, and %d live sessions were opened there, so serve cannot tell which is this client's (the latest may be another client's); send the id serve gave back on every request, as MCP's Streamable HTTP clients (the MCP SDKs') do, or let each agent session initialize one client of its own, named by its Agentsnap-Session header",
		u.method, u.server, u.session, came, u.opened)
}
