package opsloop

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// statuses is what service_status reports, fixed so a replay is
// byte-stable.
var statuses = map[string]string{
	"auth":     "down since 09:42 UTC: the signing certificate expired",
	"billing":  "degraded since 09:10 UTC: p95 latency 2400 ms, error rate 1.8%",
	"checkout": "operational: p95 latency 320 ms",
	"search":   "operational: p95 latency 180 ms",
}

// tool is one tool of an agent: a function of one string parameter.
type tool struct {
	name, description string
	param, paramDoc   string
	run               func(ctx context.Context, arg string) (string, error)
}

// declare returns the tools as langchaingo declares them to any provider.
func declare(ts []tool) []llms.Tool {
	out := make([]llms.Tool, len(ts))
	for i, t := range ts {
		out[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name:        t.name,
			Description: t.description,
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{t.param: map[string]any{"type": "string", "description": t.paramDoc}},
				"required":   []string{t.param},
			},
		}}
	}
	return out
}

// tools returns the desk's tools.
func (d *Desk) tools() []tool {
	return append(workTools(), tool{
		name:        "ask_researcher",
		description: "Hand one self-contained research question to a researcher, who starts fresh and can check services and do sums.",
		param:       "question",
		paramDoc:    "the whole question",
		run: func(ctx context.Context, q string) (string, error) {
			return d.delegate(ctx, "researcher", d.cfg.Researcher, nil, q), nil
		},
	}, tool{
		name:        "ask_colleague",
		description: "Hand a question to a colleague who has read this conversation so far and can check services and do sums.",
		param:       "question",
		paramDoc:    "the question",
		run: func(ctx context.Context, q string) (string, error) {
			// The copy is taken now, so it holds the completed turns only,
			// and nothing the colleague says flows back into the desk's.
			return d.delegate(ctx, "colleague", d.cfg.System, slices.Clone(d.history), q), nil
		},
	})
}

// delegate runs question through a child agent whose conversation starts
// as history, and returns its answer as the tool's result. A child that
// fails is reported to the model as the result.
func (d *Desk) delegate(ctx context.Context, who, system string, history []llms.MessageContent, question string) string {
	answer, _, err := d.run(ctx, system, workTools(), append(history, human(question)))
	if err != nil {
		return fmt.Sprintf("error: the %s failed: %v", who, err)
	}
	return answer
}

// workTools returns the tools every agent of the desk has.
func workTools() []tool {
	return []tool{{
		name:        "service_status",
		description: "The current status of one service.",
		param:       "service",
		paramDoc:    "auth, billing, checkout or search",
		run: func(_ context.Context, input string) (string, error) {
			name := strings.ToLower(strings.TrimSpace(input))
			if s, ok := statuses[name]; ok {
				return name + ": " + s, nil
			}
			return fmt.Sprintf("unknown service %q; known services: %s", input, strings.Join(slices.Sorted(maps.Keys(statuses)), ", ")), nil
		},
	}, {
		name:        "calculator",
		description: "Evaluates an arithmetic expression.",
		param:       "expression",
		paramDoc:    "the expression, such as 1.8 / 0.5",
		run:         tools.Calculator{}.Call,
	}}
}
