package main

// The agent in another process as serve's runtime: serving the model, MCP and
// tool endpoints over HTTP until serve is stopped, then ending what it opened.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/internal/httpguard"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/wire"
)

// stopGrace is how long serve lets answers in progress finish, once
// stopped, before it cuts every connection: serve exits within 200 ms of
// SIGINT whatever the agent does with its connections.
const stopGrace = 20 * time.Millisecond

// serveRuntime is the agent in another process as a runtime: its Run
// serves the model, MCP and recorded-tool endpoints over HTTP on ln until
// stop, and the agent drives the prompts.
type serveRuntime struct {
	name    string
	lineage wire.Lineage
	ln      net.Listener
	stdout  io.Writer
	stop    <-chan struct{}
	guard   httpguard.Config // what serve admits; Addr is the listener's
	mcp     mcpFlag          // the live MCP servers of a recording
	served  bool             // Run took the listener over
	// resumeGC, when set, gives the collector back its settings once Run
	// serves; resumeMemory, set when Run returns, gives the collector back
	// its memory limit once the verdict is made (holdMemory).
	resumeGC, resumeMemory func()
	verdict                bool // a replay's verdict follows Run
	// unprinted is why the URL line could not be written, if it could not.
	unprinted error
	// ending, set when Run returns, waits for the DELETEs that end the
	// live MCP sessions (mcpEndpoint.endSessions); see joinEnding.
	ending func()

	calls   atomic.Int64 // requests served
	asked   atomic.Int64 // requests to the MCP and tool endpoints
	refused atomic.Int64 // requests the guard refused
}

func (r *serveRuntime) Name() string { return r.name }

func (r *serveRuntime) Run(ctx context.Context, env *agentsnap.Env) error {
	// The driver reads each stream ahead, so a batch of ready frames
	// leaves in one write (serve_flush.go).
	h, err := wire.NewHandler(wire.Config{Driver: batchDriver{env.Driver}, ToolReplay: env.ToolReplay, Store: env.Store, Provider: env.Provider, Clock: env.Clock, Cwd: env.Cwd, Lineage: r.lineage, Logf: env.Logf})
	if err != nil {
		return err
	}
	// An only-changed recording has a ToolReplay too, for the sessions
	// that still replay: Recording tells the two apart. The agent's
	// Authorization and an --mcp URL's token go to that URL's origin only.
	mcp := &mcpEndpoint{h: h, recording: env.Recording, servers: r.mcp, client: live.SameOriginClient(nil), maxBody: r.guard.MaxBody, sessions: map[string]string{}, inits: map[string][]byte{}, logf: r.guard.Logf}
	tools := &toolEndpoint{h: h, recording: env.Recording}
	cfg := r.guard
	cfg.Addr = r.ln.Addr()
	g, err := httpguard.New(r.route(h, mcp, tools), cfg)
	if err != nil {
		return err
	}
	r.served = true
	if r.resumeGC != nil {
		r.resumeGC()
	}
	srv := g.Server()
	// Requests carry what the run's context does (a recording's secrets,
	// which the wire layer adds the agent's credentials to).
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	done := make(chan error, 1)
	go func() { done <- srv.Serve(r.ln) }()
	// The first line of the output: what the agent's SDK points at. Lost
	// (stdout closed, its reader gone), it leaves an address nobody
	// learned: serve stops at once rather than wait for a signal.
	var serveErr error
	if _, r.unprinted = fmt.Fprintf(r.stdout, "http://%s/v1\n", r.ln.Addr()); r.unprinted == nil {
		select {
		case <-r.stop:
		case <-ctx.Done():
		case serveErr = <-done:
			serveErr = fmt.Errorf("serve: the server stopped: %w", serveErr)
		}
	}
	// Answers still streaming after the grace are cut (their turns end
	// aborted); Stop returns when every request has left the handler.
	g.Stop(srv, stopGrace)
	r.refused.Store(g.Refused())
	// Once no request runs: the live MCP sessions a recording opened. A
	// failed DELETE's error quotes the server's URL, whose token= or user
	// info is a secret of the recording: stderr shows it redacted. The
	// DELETEs run while the recording is written (joinEnding waits for
	// them), so a server that never answers costs the exit the longer of
	// mcpEndWait and the write, not both.
	set := secret.FromContext(ctx)
	r.ending = mcp.endSessions(func(format string, args ...any) { r.guard.Logf("%s", set.Redact(fmt.Sprintf(format, args...))) })
	err = errors.Join(serveErr, h.Close(context.WithoutCancel(ctx)), mcp.err())
	if r.verdict {
		r.resumeMemory = holdMemory()
	}
	return err
}

// route sends each request to its endpoint — an MCP server's, the recorded
// tools', else the model's — and counts it: calls and asked tell an agent
// that never reached serve from one whose requests failed.
func (r *serveRuntime) route(h *wire.Handler, mcp *mcpEndpoint, tools *toolEndpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, mcpPath) {
			r.asked.Add(1)
			mcp.ServeHTTP(w, req)
			return
		}
		if req.URL.Path == toolPath {
			r.asked.Add(1)
			tools.ServeHTTP(w, req)
			return
		}
		r.calls.Add(1)
		batched(h).ServeHTTP(w, req)
	})
}

// joinEnding waits for what Run left running past its return: the
// DELETEs ending the live MCP sessions, at most mcpEndWait after Run
// stopped serving. serve calls it once the recording is written and
// before its verdict, so their notes come before it, and again (a no-op
// then) on its way out, so none outlives serve on any path.
func (r *serveRuntime) joinEnding() {
	if r.ending != nil {
		r.ending()
		r.ending = nil
	}
}

// unprintedError says that serve stopped because its URL line could not
// be written, or is nil.
func (r *serveRuntime) unprintedError() error {
	if r.unprinted == nil {
		return nil
	}
	return fmt.Errorf("writing its URL to stdout: %w; an agent learns where serve listens from that line (port 0 is any free port), so serve stopped: run it with stdout read (a terminal, a file, or a pipe whose reader keeps reading)", r.unprinted)
}

// refusedNote says how many requests serve refused, if any.
func (r *serveRuntime) refusedNote() string {
	switch n := r.refused.Load(); n {
	case 0:
		return ""
	case 1:
		return " (serve refused 1 request; the note above says why)"
	default:
		return fmt.Sprintf(" (serve refused %d requests; the notes above say why)", n)
	}
}

// closeListener closes the listener when no run took it over (a fixture
// that could not be loaded, a recording refused before it started).
func (r *serveRuntime) closeListener() {
	if !r.served {
		r.ln.Close()
	}
}
