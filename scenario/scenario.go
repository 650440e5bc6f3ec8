package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
)

// File names of a fixture folder.
const (
	File         = "scenario.json"
	PlaybookFile = "playbook.json"
	GoldenFile   = "transcript.golden"
	OverrideFile = "replay.override.json"
)

// Scenario is scenario.json.
type Scenario struct {
	Description string    `json:"description"`
	Prompts     []string  `json:"prompts"` // one user turn of the root each, in order
	Agent       Agent     `json:"agent"`
	MaxDepth    int       `json:"maxDepth,omitempty"`    // delegation depth limit; 0 means the runtime's default (2)
	TurnTimeout Duration  `json:"turnTimeout,omitempty"` // bounds each prompt's turn, e.g. "500ms"; 0 means none
	Serial      bool      `json:"serial,omitempty"`      // run subagent calls of a step one at a time
	MaxAttempts int       `json:"maxAttempts,omitempty"` // model call attempts per step (retries of retryable failures); 0 means 1
	Data        Data      `json:"data,omitempty"`        // facts the lookup tool answers from
	Recorded    *Recorded `json:"recorded,omitempty"`    // written by agentsnap record

	// Extra keeps members agentsnap does not know, so rewriting scenario.json
	// after a recording loses nothing an author added.
	Extra map[string]json.RawMessage `json:"-"`
}

// Data is the lookup tool's table.
type Data map[string]string

// Agent is the agent a scenario runs.
type Agent struct {
	Preset string   `json:"preset"`
	System string   `json:"system"`
	Tools  []string `json:"tools"`
}

// Recorded is the recording metadata.
type Recorded struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model"`
	At       string `json:"at"`
	By       string `json:"by"`
}

// Duration is a time.Duration written as a Go duration string ("500ms").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`want a duration string such as "500ms"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf(`%q is not a duration such as "500ms"`, s)
	}
	*d = Duration(v)
	return nil
}

// ErrInvalid is wrapped by every validation error of Load.
var ErrInvalid = errors.New("invalid scenario")

// Load reads and validates dir/scenario.json.
func Load(dir string) (*Scenario, error) {
	path := filepath.Join(dir, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("scenario: %s: no scenario.json; create one with: agentsnap new CATEGORY/NAME", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(b, path)
}

// Parse decodes and validates a scenario.json text; path names it in errors.
func Parse(b []byte, path string) (*Scenario, error) {
	var sc Scenario
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("scenario: %s: %w: %v", path, ErrInvalid, jsonErr(b, err))
	}
	var all map[string]json.RawMessage
	_ = json.Unmarshal(b, &all)
	for k, v := range all {
		switch k {
		case "description", "prompts", "agent", "maxDepth", "turnTimeout", "serial", "maxAttempts", "data", "recorded":
		default:
			if sc.Extra == nil {
				sc.Extra = map[string]json.RawMessage{}
			}
			sc.Extra[k] = v
		}
	}
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", path, err)
	}
	return &sc, nil
}

// jsonErr adds a line number to encoding/json's errors.
func jsonErr(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
		err = fmt.Errorf("field %s: want %s, found JSON %s", typ.Field, typ.Type, typ.Value)
	}
	if off < 0 {
		return err
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte{'\n'})
	return fmt.Errorf("line %d: %w", line, err)
}

// Validate checks what a run needs.
func (sc *Scenario) Validate() error {
	var problems []string
	if len(sc.Prompts) == 0 {
		problems = append(problems, `"prompts" is empty; give at least one user turn`)
	}
	for i, p := range sc.Prompts {
		if strings.TrimSpace(p) == "" {
			problems = append(problems, fmt.Sprintf("prompts[%d] is empty", i))
		}
	}
	for i, name := range sc.Agent.Tools {
		if _, ok := catalogue[name]; !ok {
			problems = append(problems, fmt.Sprintf("agent.tools[%d]: unknown tool %q; known tools: %s", i, name, strings.Join(ToolNames(), ", ")))
		}
	}
	if sc.MaxDepth < 0 {
		problems = append(problems, fmt.Sprintf("maxDepth is %d; use 1 or more (0 means the default, 2)", sc.MaxDepth))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return nil
}

// Save writes dir/scenario.json atomically, indented, members in a fixed
// order with unknown ones kept.
func (sc *Scenario) Save(dir string) error {
	b, err := sc.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, File), b, 0o644)
}

// Encode returns the scenario.json text.
func (sc *Scenario) Encode() ([]byte, error) {
	type plain Scenario
	known, err := marshal((*plain)(sc))
	if err != nil {
		return nil, err
	}
	if len(sc.Extra) > 0 {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(known, &m)
		for k, v := range sc.Extra {
			m[k] = v
		}
		if known, err = marshal(m); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, known, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// marshal encodes without HTML escaping, so prompts stay readable.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
