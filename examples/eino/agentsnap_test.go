package eino_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/eino/desk"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/compose"
)

// This file is the only one that knows both the agent and agentsnap: the
// desk, built as production builds it, on agentsnap's HTTP client, with
// one tool middleware that names each helper agent's session.

// settings is the desk's format of scenario.json's agent member.
type settings struct {
	Shop        string   `json:"shop"`
	Temperature *float32 `json:"temperature"`
}

// parseSettings reads the agent member strictly: a misspelled setting
// would otherwise be ignored and the replay test something else.
func parseSettings(raw json.RawMessage) (settings, error) {
	var s settings
	if len(raw) == 0 {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("eino: scenario.json agent: %w; want {\"shop\": \"...\", \"temperature\": N}", err)
	}
	return s, nil
}

// sessions names the session of each helper agent's model calls: the
// helper a tool call starts is a child of the agent that called it, made
// by that call. scout gets only its request (a spawn); critic gets the
// conversation so far (a fork: it inherits the completed turns).
var sessions = compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
		switch in.Name {
		case desk.AgentScout:
			ctx = wire.Spawn(ctx, in.CallID)
		case desk.AgentCritic:
			ctx = wire.Fork(ctx, in.CallID)
		}
		return next(ctx, in)
	}
}}

// recorded makes the catalog a recorded tool: its stock and prices change
// from day to day, so a recording keeps what it answered and a replay
// hands that back without asking it (wire.Env.Tool). Eino gives the
// middleware the call's id.
func recorded(env *wire.Env) compose.ToolMiddleware {
	return compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			if in.Name != desk.ToolCatalog {
				return next(ctx, in)
			}
			call := session.Part{ID: in.CallID, Name: in.Name, Arguments: in.Arguments}
			out, err := env.Tool(ctx, call, func(ctx context.Context) session.ToolOutput {
				o, err := next(ctx, in)
				if err != nil {
					return session.ToolOutput{Text: err.Error(), IsError: true}
				}
				return session.ToolOutput{Text: o.Result}
			})
			if err != nil && out.Text == "" {
				return nil, err
			}
			return &compose.ToolOutput{Result: out.Text}, nil
		}
	}}
}

// runtime is the desk as the runtime under test. The model name is the
// recording's (env.Model): a live recording sends AGENTSNAP_MODEL, and a
// replay sends what was recorded.
var runtime = newRuntime(variant{})

// variant is a change to the runtime, for the specs that show what a
// change does.
type variant struct {
	model    func(*openai.ChatModelConfig) // changes the chat model's settings
	untagged bool                          // leaves the helpers' sessions unnamed
	wire     []wire.Option
	// transport wraps agentsnap's transport: to see what Eino sends.
	transport func(http.RoundTripper) http.RoundTripper
}

// newRuntime is the runtime with a variant.
func newRuntime(v variant) agentsnap.Runtime {
	return wire.Runtime("eino", func(ctx context.Context, env *wire.Env) error {
		cfg, err := parseSettings(env.Scenario.Agent)
		if err != nil {
			return err
		}
		mc := &openai.ChatModelConfig{
			BaseURL:     env.BaseURL,
			HTTPClient:  env.HTTPClient,
			APIKey:      "unused", // never sent anywhere: env.HTTPClient serves in process
			Model:       env.Model,
			Temperature: cfg.Temperature,
		}
		if v.model != nil {
			v.model(mc)
		}
		if v.transport != nil {
			mc.HTTPClient = &http.Client{Transport: v.transport(env.HTTPClient.Transport)}
		}
		model, err := openai.NewChatModel(ctx, mc)
		if err != nil {
			return err
		}
		dc := desk.Config{Model: model, Shop: cfg.Shop, ToolMiddlewares: []compose.ToolMiddleware{sessions, recorded(env)}}
		if v.untagged {
			dc.ToolMiddlewares = []compose.ToolMiddleware{recorded(env)}
		}
		d, err := desk.New(ctx, dc)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := d.Ask(ctx, prompt)
			return err
		})
	}, v.wire...)
}
