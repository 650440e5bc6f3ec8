package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/scenario"
)

// catalogue holds the tools a scenario may name in agent.tools for the
// reference runtime. lookup is a recorded tool (its facts could come from
// anywhere): a replay serves its recorded results. The others are
// deterministic, so a replay gets the results the recording got.
var catalogue = map[string]func(sc *scenario.Scenario) Tool{
	SpawnToolName: func(*scenario.Scenario) Tool { return SpawnTool() },
	ForkToolName:  func(*scenario.Scenario) Tool { return ForkTool() },
	"lookup":      lookupTool,
	"add":         func(*scenario.Scenario) Tool { return addTool },
}

// CatalogueTools lists the names of the tools a scenario may give the
// reference runtime, sorted. Their arguments:
//
//	subagent_spawn  {"description": string, "prompt": string}  a child with an empty conversation
//	subagent_fork   {"description": string, "prompt": string}  a child that inherits the completed turns
//	lookup          {"key": string}                            the value of scenario.json data[key] (a recorded tool)
//	add             {"a": number, "b": number}                 the sum
func CatalogueTools() []string { return slices.Sorted(maps.Keys(catalogue)) }

// registry returns the scenario's tools, in the order names lists them.
func registry(sc *scenario.Scenario, names []string) (*Registry, error) {
	r := NewRegistry()
	for _, name := range names {
		mk, ok := catalogue[name]
		if !ok {
			return nil, fmt.Errorf("agent: unknown tool %q; known tools: %s", name, strings.Join(CatalogueTools(), ", "))
		}
		if err := r.Add(mk(sc)); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
	}
	return r, nil
}

func lookupTool(sc *scenario.Scenario) Tool {
	return &FuncTool{
		Name:        "lookup",
		Description: "Look up a fact by its key. Returns the fact's value.",
		Parameters:  `{"type":"object","properties":{"key":{"type":"string","description":"the fact's key"}},"required":["key"]}`,
		Record:      true,
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

var addTool = &FuncTool{
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
