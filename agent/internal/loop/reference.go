package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/scenario"
)

// Reference is agentsnap's reference runtime as the runtime under test: the
// runtime the CLI records and checks with, and the model for a team's own.
// It reads scenario.json's agent member as a ScenarioAgent and the shared
// settings maxDepth, serial, maxAttempts and data.
var Reference agentsnap.Runtime = reference{}

// ReferenceName is the name the reference runtime records in scenario.json.
const ReferenceName = agentsnap.ReferenceName

// Presets lists the agent presets the reference runtime knows. A preset is
// recorded in every header (agentPreset); it changes no behaviour.
var Presets = []string{"default"}

// liveBackoff is the delay before a retried model call when recording live.
const liveBackoff = time.Second

type reference struct{}

func (reference) Name() string { return ReferenceName }

func (reference) Validate(sc *scenario.Scenario) ([]string, error) {
	_, warnings, err := ParseScenarioAgent(sc)
	return warnings, err
}

func (reference) Run(ctx context.Context, env *agentsnap.Env) error {
	a, _, err := ParseScenarioAgent(env.Scenario)
	if err != nil {
		return err
	}
	cfg := Config{
		Driver:     env.Driver,
		ToolReplay: env.ToolReplay,
		Store:      env.Store,
		Provider:   env.Provider,
		Model:      env.Model,
		Cwd:        env.Cwd,
		Clock:      env.Clock,
		IDs:        LineageIDs("root"),
	}
	if err := a.Configure(&cfg, env.Scenario); err != nil {
		return err
	}
	if env.Live {
		cfg.Retry.Backoff = liveBackoff
	}
	rt, err := New(cfg)
	if err != nil {
		return err
	}
	s, err := rt.NewSession(ctx)
	if err != nil {
		return err
	}
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		res, err := s.Turn(ctx, prompt)
		if err != nil {
			return err
		}
		// A child whose model call could not start got an error tool
		// result its parent read on; the run is off its recorded path.
		for _, e := range res.Errors {
			if errors.Is(e, ErrNotStarted) {
				return fmt.Errorf("subagent: %w", e)
			}
		}
		return nil
	})
}

// ScenarioAgent is scenario.json's agent member as the reference runtime
// reads it.
type ScenarioAgent struct {
	Preset string   `json:"preset"`
	System string   `json:"system"` // the system prompt of every session
	Tools  []string `json:"tools"`  // from the catalogue (CatalogueTools), in the order offered
}

// agentMembers are the members of ScenarioAgent, in order.
var agentMembers = []string{"preset", "system", "tools"}

// ParseScenarioAgent reads sc's agent member. It refuses unknown tools and
// tools listed twice (every problem at once), and warns about unknown
// members and presets, naming the closest known one.
func ParseScenarioAgent(sc *scenario.Scenario) (*ScenarioAgent, []string, error) {
	var a ScenarioAgent
	var warnings, problems []string
	if len(bytes.TrimSpace(sc.Agent)) > 0 && !decodeAgentFast(sc.Agent, &a) {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(sc.Agent, &members); err != nil {
			return nil, nil, fmt.Errorf("agent: scenario.json: agent: want an object {preset, system, tools}: %w", err)
		}
		for _, k := range slices.Sorted(maps.Keys(members)) {
			if slices.Contains(agentMembers, k) {
				continue
			}
			w := fmt.Sprintf("scenario.json: agent.%s is not a setting of the reference runtime and is ignored (its settings: %s)", k, strings.Join(agentMembers, ", "))
			if near := scenario.Closest(k, agentMembers); near != "" {
				w += fmt.Sprintf("; did you mean %q?", near)
			}
			warnings = append(warnings, w)
		}
		if err := json.Unmarshal(sc.Agent, &a); err != nil {
			return nil, nil, fmt.Errorf("agent: scenario.json: agent: %w", err)
		}
	}
	if a.Preset != "" && !slices.Contains(Presets, a.Preset) {
		w := fmt.Sprintf("scenario.json: agent.preset %q is not a preset of the reference runtime (known: %s); it is recorded as is", a.Preset, strings.Join(Presets, ", "))
		if near := scenario.Closest(a.Preset, Presets); near != "" {
			w += fmt.Sprintf("; did you mean %q?", near)
		}
		warnings = append(warnings, w)
	}
	for i, name := range a.Tools {
		if _, ok := catalogue[name]; !ok {
			p := fmt.Sprintf("agent.tools[%d]: unknown tool %q; known tools: %s", i, name, strings.Join(CatalogueTools(), ", "))
			if near := scenario.Closest(name, CatalogueTools()); near != "" {
				p += fmt.Sprintf(" (did you mean %q?)", near)
			}
			problems = append(problems, p)
		}
		if j := slices.Index(a.Tools, name); j < i {
			problems = append(problems, fmt.Sprintf("agent.tools[%d]: %q is already agent.tools[%d]; list each tool once", i, name, j))
		}
	}
	if len(problems) > 0 {
		return nil, warnings, fmt.Errorf("agent: scenario.json: %w: %s", scenario.ErrInvalid, strings.Join(problems, "; "))
	}
	return &a, warnings, nil
}

// Configure fills the parts of cfg the scenario decides: system prompt,
// preset, tools, depth limit, serial delegation and retry attempts.
// Recording and replay both call it, so they run the same agent. On error
// cfg is left untouched.
func (a *ScenarioAgent) Configure(cfg *Config, sc *scenario.Scenario) error {
	tools, err := registry(sc, a.Tools)
	if err != nil {
		return err
	}
	cfg.System = a.System
	cfg.Preset = a.Preset
	cfg.Tools = tools
	cfg.MaxDepth = sc.MaxDepth
	cfg.Serial = sc.Serial
	cfg.Retry.MaxAttempts = sc.MaxAttempts
	return nil
}
