package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
)

// catalogue holds the tools a scenario may name in agent.tools. Every tool
// is deterministic, so a replay gets the results the recording got.
var catalogue = map[string]func(sc *Scenario) agent.Tool{
	agent.SpawnToolName: func(*Scenario) agent.Tool { return agent.SpawnTool() },
	agent.ForkToolName:  func(*Scenario) agent.Tool { return agent.ForkTool() },
	"lookup":            lookupTool,
	"add":               func(*Scenario) agent.Tool { return addTool },
}

// ToolNames lists the catalogue's tool names, sorted.
func ToolNames() []string { return slices.Sorted(maps.Keys(catalogue)) }

// Registry returns the scenario's tools, in the order agent.tools names them.
func (sc *Scenario) Registry() (*agent.Registry, error) {
	r := agent.NewRegistry()
	for _, name := range sc.Agent.Tools {
		mk, ok := catalogue[name]
		if !ok {
			return nil, fmt.Errorf("scenario: unknown tool %q; known tools: %s", name, strings.Join(ToolNames(), ", "))
		}
		if err := r.Add(mk(sc)); err != nil {
			return nil, fmt.Errorf("scenario: %w", err)
		}
	}
	return r, nil
}

// Configure fills the parts of an agent configuration the scenario decides:
// system prompt, preset, tools, depth limit, serial delegation and retry
// attempts. Recording and replay both call it, so they run the same agent.
func (sc *Scenario) Configure(cfg *agent.Config) error {
	tools, err := sc.Registry()
	if err != nil {
		return err
	}
	cfg.System = sc.Agent.System
	cfg.Preset = sc.Agent.Preset
	cfg.Tools = tools
	cfg.MaxDepth = sc.MaxDepth
	cfg.Serial = sc.Serial
	cfg.Retry.MaxAttempts = sc.MaxAttempts
	return nil
}

func lookupTool(sc *Scenario) agent.Tool {
	return &agent.FuncTool{
		Name:        "lookup",
		Description: "Look up a fact by its key. Returns the fact's value.",
		Parameters:  `{"type":"object","properties":{"key":{"type":"string","description":"the fact's key"}},"required":["key"]}`,
		Fn: func(_ context.Context, raw json.RawMessage) (string, error) {
			var args struct {
				Key string `json:"key"`
			}
			if err := json.Unmarshal(raw, &args); err != nil {
				return "", err
			}
			v, ok := sc.Data[args.Key]
			switch {
			case !ok && len(sc.Data) == 0:
				return "", fmt.Errorf("no fact with key %q; there are no facts", args.Key)
			case !ok:
				return "", fmt.Errorf("no fact with key %q; known keys: %s", args.Key, strings.Join(slices.Sorted(maps.Keys(sc.Data)), ", "))
			}
			return v, nil
		},
	}
}

var addTool = &agent.FuncTool{
	Name:        "add",
	Description: "Add two numbers and return the sum.",
	Parameters:  `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
	Fn: func(_ context.Context, raw json.RawMessage) (string, error) {
		var args struct{ A, B float64 }
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", err
		}
		return strconv.FormatFloat(args.A+args.B, 'f', -1, 64), nil
	},
}
