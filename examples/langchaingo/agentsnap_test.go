package langchaingo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/examples/langchaingo/opsdesk"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"
)

// This file is the only one that knows both the agent and agentsnap: the
// desk under test, built as production builds it, on agentsnap's HTTP
// client.

// settings is the desk's format of scenario.json's agent member.
type settings struct {
	System      string   `json:"system"`
	Remember    bool     `json:"remember"`
	Temperature *float64 `json:"temperature"`
}

// parseSettings reads the agent member strictly: a misspelt setting would
// otherwise be ignored and the replay test something else.
func parseSettings(raw json.RawMessage) (settings, error) {
	var s settings
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("opsdesk: scenario.json agent: %w; want {\"system\": \"...\", \"remember\": true|false, \"temperature\": N}", err)
	}
	if s.System == "" {
		return s, errors.New(`opsdesk: scenario.json agent has no "system": set the desk's system prompt`)
	}
	return s, nil
}

// runtime is the desk as the runtime under test. langchaingo hands a tool
// no tool call id (tools.Tool.Call gets a context and the input only), so
// the desk cannot name its children: wire.InferLineage tells each child
// by the open tool call whose arguments hold its question.
var runtime = wire.Runtime("langchaingo-opsdesk", deskRun(), wire.InferLineage())

// deskRun returns a run that builds the desk on a langchaingo openai LLM
// whose HTTP client is agentsnap's and runs the scenario's prompts through
// it; extra options go with every run of the desk. The model name is the
// recording's (env.Model): a live recording sends AGENTSNAP_MODEL, a
// replay what was recorded.
func deskRun(extra ...chains.ChainCallOption) func(context.Context, *wire.Env) error {
	return func(ctx context.Context, env *wire.Env) error {
		return runDesk(ctx, env, extra)
	}
}

func runDesk(ctx context.Context, env *wire.Env, extra []chains.ChainCallOption) error {
	cfg, err := parseSettings(env.Scenario.Agent)
	if err != nil {
		return err
	}
	llm, err := openai.New(
		openai.WithBaseURL(env.BaseURL),
		openai.WithHTTPClient(env.HTTPClient),
		openai.WithToken("agentsnap"), // never sent anywhere: env.HTTPClient serves in process
		openai.WithModel(env.Model),
	)
	if err != nil {
		return err
	}
	opts := slices.Clone(extra)
	if cfg.Temperature != nil {
		opts = append(opts, chains.WithTemperature(*cfg.Temperature))
	}
	desk, err := opsdesk.New(opsdesk.Config{LLM: llm, System: cfg.System, Remember: cfg.Remember, Options: opts})
	if err != nil {
		return err
	}
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := desk.Ask(ctx, prompt)
		return err
	})
}
