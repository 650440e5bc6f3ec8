package langchaingo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentsnap/agentsnap/examples/langchaingo/opsloop"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// This file wires the tool-loop desk (opsloop) to agentsnap on the
// providers other than llms/openai, as agentsnap_test.go does the
// functions-agent desk on llms/openai.

// loopSettings is the tool-loop desk's format of scenario.json's agent
// member.
type loopSettings struct {
	System      string   `json:"system"`
	Temperature *float64 `json:"temperature"`
}

func parseLoopSettings(raw json.RawMessage) (loopSettings, error) {
	var s loopSettings
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("opsloop: scenario.json agent: %w; want {\"system\": \"...\", \"temperature\": N}", err)
	}
	if s.System == "" {
		return s, errors.New(`opsloop: scenario.json agent has no "system": set the desk's system prompt`)
	}
	return s, nil
}

// newModel builds a langchaingo model on agentsnap's HTTP client.
type newModel func(ctx context.Context, env *wire.Env) (llms.Model, error)

// claudeModel is llms/anthropic on agentsnap's client: the base URL ends in /v1,
// as Anthropic's own does, and langchaingo adds /messages.
func claudeModel(_ context.Context, env *wire.Env) (llms.Model, error) {
	return anthropic.New(
		anthropic.WithBaseURL(env.BaseURL),
		anthropic.WithHTTPClient(env.HTTPClient),
		anthropic.WithToken("agentsnap"), // never sent anywhere: env.HTTPClient serves in process
		anthropic.WithModel(env.Model),
	)
}

// claudeRuntime is the tool-loop desk on llms/anthropic. Its tools run in
// the loop with no call id in their context, so children are told apart by
// wire.InferLineage, as for the functions-agent desk.
var claudeRuntime = wire.Runtime("langchaingo-opsloop-anthropic", loopRun(claudeModel, nil), wire.InferLineage())

// loopRun returns a run that builds the tool-loop desk on the model that
// build makes and runs the scenario's prompts through it; change, when not
// nil, changes the desk's configuration first (a spec's variant of the
// desk).
func loopRun(build newModel, change func(*opsloop.Config)) func(context.Context, *wire.Env) error {
	return func(ctx context.Context, env *wire.Env) error {
		set, err := parseLoopSettings(env.Scenario.Agent)
		if err != nil {
			return err
		}
		model, err := build(ctx, env)
		if err != nil {
			return err
		}
		if c, ok := model.(io.Closer); ok {
			defer c.Close() // googleai's client holds connections
		}
		cfg := opsloop.Config{LLM: model, System: set.System}
		if set.Temperature != nil {
			cfg.Options = append(cfg.Options, llms.WithTemperature(*set.Temperature))
		}
		if change != nil {
			change(&cfg)
		}
		desk, err := opsloop.New(cfg)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := desk.Ask(ctx, prompt)
			return err
		})
	}
}

// openaiModel is llms/openai on agentsnap's client, as agentsnap_test.go
// builds the functions-agent desk's.
func openaiModel(_ context.Context, env *wire.Env) (llms.Model, error) {
	return openai.New(openai.WithBaseURL(env.BaseURL), openai.WithHTTPClient(env.HTTPClient), openai.WithToken("agentsnap"), openai.WithModel(env.Model))
}
