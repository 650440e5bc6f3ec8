package ownloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Name is the name ownloop records in scenario.json (recorded.runtime).
const Name = "ownloop"

// DefaultMaxDepth is the delegation depth limit when the settings give none.
const DefaultMaxDepth = 2

// Runtime is the ownloop agent as an agentsnap.Runtime. The zero value is
// ready to use; it keeps no state between runs.
type Runtime struct{}

var (
	_ agentsnap.Runtime   = Runtime{}
	_ agentsnap.Named     = Runtime{}
	_ agentsnap.Validator = Runtime{}
)

// Name implements agentsnap.Named.
func (Runtime) Name() string { return Name }

// Validate implements agentsnap.Validator: it checks scenario.json's agent
// member before anything runs.
func (Runtime) Validate(sc *scenario.Scenario) ([]string, error) {
	_, warnings, err := ParseSettings(sc)
	return warnings, err
}

// Run implements agentsnap.Runtime: one root session, one turn per prompt.
func (Runtime) Run(ctx context.Context, env *agentsnap.Env) error {
	set, _, err := ParseSettings(env.Scenario)
	if err != nil {
		return err
	}
	root, err := journal.NewRoot(ctx, journal.Config{
		Store:  env.Store,
		Clock:  env.Clock,
		IDs:    session.NewLineageIDs("root"),
		Cwd:    env.Cwd,
		Preset: Name,
	})
	if err != nil {
		return fmt.Errorf("ownloop: %w", err)
	}
	a := &agent{env: env, set: set}
	s := &sess{a: a, j: root}
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := s.turn(ctx, journal.TriggerUser, prompt)
		// A child whose model call could not start leaves the recorded
		// path as surely as the root's own call would.
		return errors.Join(err, a.notStarted())
	})
}

// Settings is scenario.json's agent member as ownloop reads it — ownloop's
// own format, not the reference runtime's.
type Settings struct {
	// Persona opens the system prompt of every session.
	Persona string `json:"persona"`
	// Tools are offered in this order; see ToolNames.
	Tools []string `json:"tools"`
	// MaxDepth limits delegation: a session at this depth is not offered
	// the delegation tools. 0 means scenario.json's shared maxDepth, and
	// DefaultMaxDepth when that is 0 too.
	MaxDepth int `json:"maxDepth"`
}

// settingNames are the members of Settings.
var settingNames = []string{"persona", "tools", "maxDepth"}

// ParseSettings reads sc's agent member. Unknown members are warnings
// naming the closest setting; unknown or repeated tools and a negative
// maxDepth are errors, all reported at once.
func ParseSettings(sc *scenario.Scenario) (*Settings, []string, error) {
	var set Settings
	var warnings, problems []string
	if len(bytes.TrimSpace(sc.Agent)) > 0 {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(sc.Agent, &members); err != nil {
			return nil, nil, fmt.Errorf("ownloop: scenario.json: agent: want an object {persona, tools, maxDepth}: %w", err)
		}
		for _, k := range slices.Sorted(maps.Keys(members)) {
			if slices.Contains(settingNames, k) {
				continue
			}
			w := fmt.Sprintf("scenario.json: agent.%s is not an ownloop setting and is ignored (its settings: %s)", k, strings.Join(settingNames, ", "))
			if near := scenario.Closest(k, settingNames); near != "" {
				w += fmt.Sprintf("; did you mean %q?", near)
			}
			warnings = append(warnings, w)
		}
		if err := json.Unmarshal(sc.Agent, &set); err != nil {
			return nil, warnings, fmt.Errorf("ownloop: scenario.json: agent: %w", err)
		}
	}
	// agent.maxDepth is ownloop's own; the shared maxDepth is the fallback.
	switch {
	case set.MaxDepth == 0:
		set.MaxDepth = sc.MaxDepth
	case sc.MaxDepth != 0 && sc.MaxDepth != set.MaxDepth:
		warnings = append(warnings, fmt.Sprintf("scenario.json: maxDepth %d is ignored: agent.maxDepth %d is ownloop's depth limit", sc.MaxDepth, set.MaxDepth))
	}
	for i, name := range set.Tools {
		if !slices.Contains(ToolNames, name) {
			p := fmt.Sprintf("agent.tools[%d]: unknown tool %q; ownloop's tools: %s", i, name, strings.Join(ToolNames, ", "))
			if near := scenario.Closest(name, ToolNames); near != "" {
				p += fmt.Sprintf(" (did you mean %q?)", near)
			}
			problems = append(problems, p)
		}
		if j := slices.Index(set.Tools, name); j < i {
			problems = append(problems, fmt.Sprintf("agent.tools[%d]: %q is already agent.tools[%d]; list each tool once", i, name, j))
		}
	}
	if set.MaxDepth < 0 {
		problems = append(problems, fmt.Sprintf("agent.maxDepth is %d; use 1 or more (0 means %d)", set.MaxDepth, DefaultMaxDepth))
	}
	if len(problems) > 0 {
		return nil, warnings, fmt.Errorf("ownloop: scenario.json: %w: %s", scenario.ErrInvalid, strings.Join(problems, "; "))
	}
	if set.MaxDepth == 0 {
		set.MaxDepth = DefaultMaxDepth
	}
	return &set, warnings, nil
}
