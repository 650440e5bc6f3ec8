package mcpagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/examples/mcp-agent"
	"github.com/agentsnap/agentsnap/examples/mcp-agent/clock"
	"github.com/agentsnap/agentsnap/mcpsnap"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// This file is the only one that knows both the agent and agentsnap: the
// agent as production builds it, with agentsnap's HTTP client, its
// session tags, and its MCP transport around the clock server's.

// dials counts the connections the clock's transport tried to open in a
// replay.
var dials atomic.Int64

// noNetwork is the HTTP client of the clock's transport in a replay: any
// dial fails, and is counted.
var noNetwork = &http.Client{Transport: &http.Transport{
	DialContext: func(context.Context, string, string) (net.Conn, error) {
		dials.Add(1)
		return nil, errors.New("mcp-agent: a replay opens no connection")
	},
}}

// clockServer returns the clock server's transport, MCP over Streamable
// HTTP: while recording, to a live server on a loopback listener reading
// the real time, stopped by stop; in a replay, to an address nothing
// listens on, through noNetwork.
func clockServer(env *wire.Env) (live mcp.Transport, stop func()) {
	if !env.Recording {
		return &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:1/mcp", HTTPClient: noNetwork, MaxRetries: -1}, func() {}
	}
	srv := clock.NewServer(time.Now)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	return &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, ts.Close
}

// settings is scenario.json's agent member for mcpagent.
type settings struct {
	System string `json:"system"`
}

// runtime is mcpagent as the runtime under test.
var runtime = wire.Runtime("mcp-agent", func(ctx context.Context, env *wire.Env) error {
	var cfg settings
	if err := json.Unmarshal(env.Scenario.Agent, &cfg); err != nil || cfg.System == "" {
		return fmt.Errorf(`mcp-agent: scenario.json agent: want {"system": "..."} (%v)`, err)
	}
	live, stop := clockServer(env)
	defer stop()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-agent", Version: "v1.0.0"}, nil)
	tools, err := client.Connect(ctx, mcpsnap.Transport(env, "clock", live), nil)
	if err != nil {
		return fmt.Errorf("mcp-agent: connecting the clock: %w", err)
	}
	defer tools.Close()
	agent, err := mcpagent.New(ctx, mcpagent.Config{
		Client: openai.NewClient(
			option.WithBaseURL(env.BaseURL),
			option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("agentsnap"), // never sent anywhere: env.HTTPClient serves in process
			option.WithMaxRetries(0),
		),
		Model:  env.Model,
		System: cfg.System,
		Tools:  tools,
		ChildContext: func(ctx context.Context, callID string, fork bool) context.Context {
			if fork {
				return wire.Fork(ctx, callID)
			}
			return wire.Spawn(ctx, callID)
		},
	})
	if err != nil {
		return err
	}
	root := agent.NewSession()
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := root.Send(ctx, prompt)
		return err
	})
})
