package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
)

// BaseURL is the base URL an agent under Runtime points its SDK at. No
// request leaves the process: Env.HTTPClient serves it.
const BaseURL = "http://agentsnap.invalid/v1"

// Env is what an agent that talks to its model over HTTP is handed: the
// runtime's agentsnap.Env, and an HTTP client that serves every model call
// in process — in a replay from the recording, while recording from the
// playbook or the live model — writing the session logs from the wire.
type Env struct {
	*agentsnap.Env
	// HTTPClient serves the model API at BaseURL; give it to the SDK
	// (openai-go: option.WithHTTPClient, option.WithBaseURL(BaseURL)).
	HTTPClient *http.Client
	BaseURL    string

	h *Handler
}

// MCP answers one request of the agent to the MCP server named server,
// for the session ctx names (Spawn, Fork; the root's when it names none),
// and records it in that session's log: while recording send asks the
// live server; in a replay the recording answers and send is never
// called. See Handler.MCP; package mcpsnap (a module of its own) makes it
// a transport of the MCP Go SDK.
//
// A request that gets no answer (err: the live server did not answer, or
// the session cannot be told) fails the run as well, as under serve: its
// log lacks the request, so a recording without it would not replay — and
// the agent may pass the error, the server's address with it, to the model.
func (e *Env) MCP(ctx context.Context, server, method string, params json.RawMessage, send MCPSend) (session.MCPCallData, error) {
	rec, err := e.h.MCP(ctx, nil, server, method, params, send)
	switch {
	case errors.Is(err, errNoAnswer):
		e.h.problem(fmt.Errorf("%w; the session's log lacks the request, so the run fails: make the MCP server answer (is it running, at the address the agent's transport names?) and run again", err))
	case err != nil:
		// The error says what to fix; the server was never asked.
		e.h.problem(fmt.Errorf("%w; the session's log lacks the request, so the run fails", err))
	}
	return rec, err
}

// Tool runs one call of a recorded tool — a tool whose output changes from
// run to run (the clock, a search, an HTTP API) or that must not run in
// CI — for the session ctx names (Spawn, Fork; the root's when it names
// none, or with InferLineage the session whose last answer made the call):
// while recording it calls run and records the output in the
// session's log; in a replay the recording answers and run is never
// called. call is the tool call as the agent runs it: its Name and
// Arguments, and its ID when the agent has it. See Handler.Tool.
func (e *Env) Tool(ctx context.Context, call session.Part, run func(context.Context) session.ToolOutput) (session.ToolOutput, error) {
	return e.h.Tool(ctx, nil, call, run)
}

// Option configures the handler of a Runtime.
type Option func(*Config)

// InferLineage makes the runtime tell an agent's children from what its
// calls send rather than from Spawn, Fork or headers; see Infer. Use it
// for recording and replay alike.
func InferLineage() Option { return func(c *Config) { c.Lineage = Infer } }

// Runtime makes an agent that only lets you swap its HTTP client the
// runtime under test. run drives the scenario's prompts (Env.EachPrompt)
// with model calls through env.HTTPClient; the context it gets is the root
// session's, and a delegating agent derives each child's context with
// Spawn or Fork. name is recorded in scenario.json, so a fixture is only
// replayed with the runtime that recorded it ("" records none).
func Runtime(name string, run func(ctx context.Context, env *Env) error, opts ...Option) agentsnap.Runtime {
	return &runtime{name: name, run: run, opts: opts}
}

type runtime struct {
	name string
	run  func(ctx context.Context, env *Env) error
	opts []Option
}

func (r *runtime) Name() string { return r.name }

func (r *runtime) Run(ctx context.Context, env *agentsnap.Env) error {
	cfg := Config{
		Driver:     env.Driver,
		ToolReplay: env.ToolReplay,
		Store:      env.Store,
		Provider:   env.Provider,
		Clock:      env.Clock,
		Cwd:        env.Cwd,
		Logf:       env.Logf,
	}
	for _, o := range r.opts {
		o(&cfg)
	}
	h, err := NewHandler(cfg)
	if err != nil {
		return err
	}
	h.secrets = secret.FromContext(ctx)
	client := &http.Client{Transport: Transport(h)}
	runErr := r.run(ctx, &Env{Env: env, HTTPClient: client, BaseURL: BaseURL, h: h})
	client.CloseIdleConnections() // the run's handler goroutines end with it
	return errors.Join(runErr, h.Close(context.WithoutCancel(ctx)))
}
