package sdkagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// This file is the only one that knows both the agent and agentsnap: the
// agent under test, built as production builds it, with agentsnap's HTTP
// client and its session tags.

// settings is sdkagent's format of scenario.json's agent member.
type settings struct {
	System   string `json:"system"`
	MaxDepth int    `json:"maxDepth"`
}

// parseSettings reads the agent member strictly: a misspelled setting
// would otherwise be ignored and the replay test something else.
func parseSettings(raw json.RawMessage) (settings, error) {
	var s settings
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("sdkagent: scenario.json agent: %w; want {\"system\": \"...\", \"maxDepth\": N}", err)
	}
	if s.System == "" {
		return s, errors.New(`sdkagent: scenario.json agent has no "system": set the agent's system prompt`)
	}
	return s, nil
}

// childContext tags each child's model calls with its session, so the
// wire layer writes one log per session with its lineage.
func childContext(ctx context.Context, callID string, fork bool) context.Context {
	if fork {
		return wire.Fork(ctx, callID)
	}
	return wire.Spawn(ctx, callID)
}

// runtime is sdkagent as the runtime under test. The model name is the
// recording's (env.Model): a live recording sends AGENTSNAP_MODEL, and a
// replay sends what was recorded.
var runtime = wire.Runtime("sdkagent", func(ctx context.Context, env *wire.Env) error {
	cfg, err := parseSettings(env.Scenario.Agent)
	if err != nil {
		return err
	}
	agent := &sdkagent.Agent{
		Client: openai.NewClient(
			option.WithBaseURL(env.BaseURL),
			option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), // never sent anywhere: env.HTTPClient serves in process
			option.WithMaxRetries(0),    // a replay serves each recorded call once
		),
		Model:        env.Model,
		System:       cfg.System,
		MaxDepth:     cfg.MaxDepth,
		ChildContext: childContext,
	}
	root := agent.NewSession()
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := root.Send(ctx, prompt)
		return err
	})
})
