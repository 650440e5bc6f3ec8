package mcpsnap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrClosed is what Read and Write return once the connection is closed.
var ErrClosed = errors.New("mcpsnap: the connection is closed")

// Transport returns an mcp.Transport to the MCP server named server (the
// name its requests are recorded under; give each server its own) for an
// agent run under wire.Runtime. Every request the client makes is
// answered through env.MCP for the session its context names (wire.Spawn,
// wire.Fork; the root's when it names none) and recorded in that
// session's log: while recording live carries it to the real server; in a
// replay the recording answers it and live is never connected. An
// only-changed recording (record --only-changed) answers a session that
// still replays its recorded model calls from the recording too, and
// carries the requests of a session recorded anew to live — after the
// client's initialize and notifications/initialized, when the recording
// answered that initialize, so live sees the handshake a session needs.
//
// A credential in the URL of a live *mcp.StreamableClientTransport or
// *mcp.SSEClientTransport (a token=, user info), and the value of each
// variable of an *mcp.CommandTransport's Command.Env whose name says it is
// a credential (GITHUB_TOKEN, API_KEY, DB_PASSWORD), inside any number of
// *mcp.LoggingTransport too, is a secret of the recording: the recording
// is refused when a log would hold it, and messages show it redacted. One
// sent otherwise (a header its HTTPClient adds, a variable the command
// inherits, a transport of another kind) is not seen here: name the
// variable that holds it in AGENTSNAP_SECRET_VARS (or pass it in
// recorder.Options.Secrets).
//
// While recording, what the server sends of its own (notifications, and
// requests such as sampling, which the client answers) passes through but
// is not recorded, so a replay does not send it: an agent whose path
// depends on it does not replay. A client's subscriptions/listen (protocol
// 2026-07-28: the SDK's with a list-changed handler) is answered with an
// error, neither sent nor recorded, so it gets no notifications while
// recording either.
func Transport(env *wire.Env, server string, live mcp.Transport) mcp.Transport {
	return &transport{env: env, server: server, live: live}
}

type transport struct {
	env    *wire.Env
	server string
	live   mcp.Transport
}

// Connect implements mcp.Transport. It connects nothing: a recording
// connects live at the client's first request.
func (t *transport) Connect(context.Context) (mcp.Connection, error) {
	return &conn{t: t, incoming: make(chan jsonrpc.Message, 16), closed: make(chan struct{}), pending: map[any]chan *jsonrpc.Response{}}, nil
}

// conn is the client's connection: each request is answered by env.MCP on
// a goroutine of its own, its response queued for Read.
type conn struct {
	t         *transport
	incoming  chan jsonrpc.Message
	closed    chan struct{}
	closeOnce sync.Once

	liveOnce sync.Once
	liveConn mcp.Connection
	liveErr  error

	mu      sync.Mutex
	pending map[any]chan *jsonrpc.Response // by request id: live answers awaited
	// live is liveConn once it may take the client's notifications: in
	// an only-changed recording, after the handshake connectLive replays.
	live mcp.Connection
	// init is the client's initialize an only-changed recording answered
	// from the recording, and initialized the notification that followed
	// it: the live server gets both before the first request recorded
	// anew, as it would have at the start of a live session.
	init, initialized *jsonrpc.Request
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming:
		return m, nil
	case <-c.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection. A request is answered on its own
// goroutine, under ctx — the context of the client's call, which names
// the session.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() {
			return c.forward(ctx, m) // a notification: the live server's, if any
		}
		if m.Method == methodListen {
			go c.deliver(c.notRelayed(m))
			return nil
		}
		go func() { c.deliver(c.answer(ctx, m)) }()
		return nil
	case *jsonrpc.Response:
		return c.forward(ctx, m) // the client's answer to the live server's request
	}
	return fmt.Errorf("mcpsnap: Write: a %T is no JSON-RPC message", msg)
}

// methodListen is the request of a client that listens for the server's
// notifications (protocol 2026-07-28): the server answers it only when
// the client cancels it.
const methodListen = "subscriptions/listen"

// notRelayed answers a listen, recording or replaying alike, with an error
// the client's SDK takes as "no notifications": the recording holds none of
// the server's own messages, so a replay could send none, and the request,
// unanswered, would keep its session's log from being complete.
func (c *conn) notRelayed(m *jsonrpc.Request) *jsonrpc.Response {
	return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("mcpsnap: server %s: %s is not relayed: a recording holds no messages of the server's own, so a replay could send none; the client gets no list-changed notifications, recording or replaying", c.t.server, methodListen)}}
}

// answer answers one request through the session's recording.
func (c *conn) answer(ctx context.Context, m *jsonrpc.Request) *jsonrpc.Response {
	sent := false
	send := func(ctx context.Context) (json.RawMessage, *session.MCPError, error) {
		sent = true
		return c.send(ctx, m)
	}
	rec, err := c.t.env.MCP(ctx, c.t.server, m.Method, m.Params, send)
	if err == nil && !sent && m.Method == "initialize" && c.t.env.Recording {
		c.mu.Lock()
		c.init = m
		c.mu.Unlock()
	}
	if err != nil {
		return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}}
	}
	if rec.Error != nil {
		return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: rec.Error.Code, Message: rec.Error.Message, Data: rec.Error.Data}}
	}
	return &jsonrpc.Response{ID: m.ID, Result: rec.Result}
}

func (c *conn) deliver(m jsonrpc.Message) {
	select {
	case c.incoming <- m:
	case <-c.closed:
	}
}

// send carries one request to the live server and waits for its answer.
func (c *conn) send(ctx context.Context, m *jsonrpc.Request) (json.RawMessage, *session.MCPError, error) {
	lc, err := c.connectLive(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c.roundTrip(ctx, lc, m)
}

// roundTrip writes the request m to the live connection lc and waits for
// its answer, which readLive hands over.
func (c *conn) roundTrip(ctx context.Context, lc mcp.Connection, m *jsonrpc.Request) (json.RawMessage, *session.MCPError, error) {
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	c.pending[m.ID.Raw()] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, m.ID.Raw())
		c.mu.Unlock()
	}()
	if err := lc.Write(ctx, m); err != nil {
		return nil, nil, fmt.Errorf("mcpsnap: server %s: sending %s: %w", c.t.server, m.Method, err)
	}
	select {
	case r := <-ch:
		if r.Error == nil {
			return r.Result, nil, nil
		}
		var we *jsonrpc.Error
		if errors.As(r.Error, &we) {
			return nil, &session.MCPError{Code: we.Code, Message: we.Message, Data: we.Data}, nil
		}
		return nil, &session.MCPError{Code: jsonrpc.CodeInternalError, Message: r.Error.Error()}, nil
	case <-c.closed:
		return nil, nil, ErrClosed
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// connectLive connects the live server once, and reads what it sends: the
// answers to the client's requests go to their waiting send, anything
// else to the client.
func (c *conn) connectLive(ctx context.Context) (mcp.Connection, error) {
	c.liveOnce.Do(func() {
		if c.t.live == nil {
			c.liveErr = fmt.Errorf("mcpsnap: server %s: a recording needs the live server, and the transport has none; pass the live server's transport as mcpsnap.Transport's third argument while env.Recording", c.t.server)
			return
		}
		// A credential in the server's URL (a token=, user info) is a
		// secret of the recording, as serve's --mcp URL's is, and so is one
		// a server's command is started with: a server or an error that
		// echoes it cannot leave it in the fixture.
		set := secret.FromContext(ctx)
		switch lt := inner(c.t.live).(type) {
		case *mcp.StreamableClientTransport:
			if lt != nil {
				set.AddURL(fmt.Sprintf("the URL of MCP server %s", c.t.server), lt.Endpoint)
			}
		case *mcp.SSEClientTransport:
			if lt != nil {
				set.AddURL(fmt.Sprintf("the URL of MCP server %s", c.t.server), lt.Endpoint)
			}
		case *mcp.CommandTransport:
			if lt != nil && lt.Command != nil {
				set.AddEnviron(fmt.Sprintf("the command of MCP server %s", c.t.server), lt.Command.Env)
			}
		}
		lc, err := c.t.live.Connect(context.WithoutCancel(ctx))
		if err != nil {
			c.liveErr = fmt.Errorf("mcpsnap: server %s: connecting: %w", c.t.server, err)
			return
		}
		go c.readLive(lc)
		if err := c.handshake(ctx, lc); err != nil {
			lc.Close()
			c.liveErr = err
			return
		}
		c.liveConn = lc
		c.mu.Lock()
		c.live = lc
		c.mu.Unlock()
	})
	return c.liveConn, c.liveErr
}

// inner returns the transport that connects inside t: t itself, or the
// one inside any number of the SDK's wrappers that hold another
// (mcp.LoggingTransport, the one in the SDK version of go.mod). A wrapper
// of another kind hides what it holds: its credential is named in
// AGENTSNAP_SECRET_VARS.
func inner(t mcp.Transport) mcp.Transport {
	// Bounded: a wrapper that holds itself would never connect either.
	for range 64 {
		lt, ok := t.(*mcp.LoggingTransport)
		switch {
		case !ok:
			return t
		case lt == nil:
			return nil
		}
		t = lt.Transport
	}
	return nil
}

// handshake starts the live session of an only-changed recording whose
// initialize the recording answered: the server gets that initialize and
// notifications/initialized before the request recorded anew, or an SDK
// that holds a session to its handshake refuses the request. A client
// that discovered the server instead (protocol 2026-07-28) needs none:
// each request says its protocol version.
func (c *conn) handshake(ctx context.Context, lc mcp.Connection) error {
	c.mu.Lock()
	init, initialized := c.init, c.initialized
	c.mu.Unlock()
	if init == nil {
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("mcpsnap: server %s: starting the live session for a request recorded anew, whose initialize the recording answered: %w; check that the server runs and takes the recorded initialize, or record the whole fixture again", c.t.server, err)
	}
	_, rpcErr, err := c.roundTrip(ctx, lc, init)
	switch {
	case err != nil:
		return fail(err)
	case rpcErr != nil:
		return fail(fmt.Errorf("the server answered initialize with error %d: %s", rpcErr.Code, rpcErr.Message))
	}
	if initialized == nil { // the client wrote it before any request; this is a guard
		initialized = &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}
	}
	if err := lc.Write(ctx, initialized); err != nil {
		return fail(fmt.Errorf("sending notifications/initialized: %w", err))
	}
	return nil
}

func (c *conn) readLive(lc mcp.Connection) {
	for {
		m, err := lc.Read(context.Background())
		if err != nil {
			c.Close() // the server is gone: so is the client's connection
			return
		}
		if r, ok := m.(*jsonrpc.Response); ok {
			c.mu.Lock()
			ch := c.pending[r.ID.Raw()]
			c.mu.Unlock()
			if ch != nil {
				ch <- r
			}
			continue
		}
		c.deliver(m)
	}
}

// forward passes a notification, or the client's answer to a request of
// the server, to the live server. A recording connects it; an only-changed
// one (a ToolReplay too) only for a request recorded anew, and until then
// drops what the client sends, but for the notifications/initialized of an
// initialize the recording answered, kept for handshake. A replay has no
// live server.
func (c *conn) forward(ctx context.Context, m jsonrpc.Message) error {
	if !c.t.env.Recording {
		return nil
	}
	if c.t.env.ToolReplay == nil {
		lc, err := c.connectLive(ctx)
		if err != nil {
			return err
		}
		return lc.Write(ctx, m)
	}
	c.mu.Lock()
	lc := c.live
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/initialized" && c.init != nil {
		// The handshake sends it, once, after the initialize.
		c.initialized, lc = r, nil
	}
	c.mu.Unlock()
	if lc == nil {
		return nil
	}
	return lc.Write(ctx, m)
}

// Close implements mcp.Connection: it ends Read and the live connection.
func (c *conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		c.liveOnce.Do(func() {}) // no live connection from here on
		if c.liveConn != nil {
			err = c.liveConn.Close()
		}
	})
	return err
}

// SessionID implements mcp.Connection: the recorded connection has none.
func (c *conn) SessionID() string { return "" }
