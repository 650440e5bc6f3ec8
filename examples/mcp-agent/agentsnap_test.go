package mcpagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/examples/mcp-agent"
	"github.com/agentsnap/agentsnap/examples/mcp-agent/clock"
	"github.com/agentsnap/agentsnap/mcpsnap"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// This file is the only one that knows both the agent and agentsnap: the
// agent as production builds it, with agentsnap's HTTP client, its
// session tags, and its MCP transport around the clock server's.

// absentConnects counts what asked the absent server to connect.
var absentConnects atomic.Int64

// absentServer is the clock server in a replay: there is none, and
// connecting to it fails the spec.
type absentServer struct{}

func (absentServer) Connect(context.Context) (mcp.Connection, error) {
	absentConnects.Add(1)
	defer GinkgoRecover()
	Fail("the replay connected the MCP server; a replay must answer from the recording")
	return nil, errors.New("there is no MCP server in a replay")
}

// clockServer returns the clock server's transport: while recording, a
// live server in process reading the real time, stopped by stop; in a
// replay, absentServer.
func clockServer(ctx context.Context, env *wire.Env) (live mcp.Transport, stop func(), err error) {
	if !env.Recording {
		return absentServer{}, func() {}, nil
	}
	client, server := mcp.NewInMemoryTransports()
	ss, err := clock.NewServer(time.Now).Connect(ctx, server, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("starting the clock server: %w", err)
	}
	return client, func() { _ = ss.Close() }, nil
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
	live, stop, err := clockServer(ctx, env)
	if err != nil {
		return err
	}
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
