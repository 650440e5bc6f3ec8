// Package playbook is an llm.Driver that plays authored model turns, so a
// scenario can be recorded with no key and no network. playbook.json gives,
// per session, the model's answers in order; the driver streams each one in
// realistic chunks (llm.StreamMessage), exactly as a live model's would be
// recorded.
//
// Sessions are keyed by lineage: "root" is the root session; a child is keyed
// by the id of the tool call that created it. Tool call ids are authored, so
// they are unique within a playbook and a child's key never depends on
// timing.
package playbook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Playbook is playbook.json.
type Playbook struct {
	Doc      []string           `json:"_doc,omitempty"` // free text for authors
	Sessions map[string][]*Turn `json:"sessions"`
}

// Turn is one authored model answer: one stream() call.
type Turn struct {
	Note      string     `json:"note,omitempty"` // free text for authors
	Reasoning string     `json:"reasoning,omitempty"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"`  // default: estimated from the text
	Finish    string     `json:"finish,omitempty"` // stop, tool-calls or max-tokens; default from the content
	Error     *Error     `json:"error,omitempty"`  // stream the text, then fail with this error
	Hang      bool       `json:"hang,omitempty"`   // stream the text, then wait until the call is cancelled
}

// ToolCall is an authored tool call.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON object
}

// Usage is authored token accounting.
type Usage struct {
	InputTokens     int  `json:"inputTokens"`
	OutputTokens    int  `json:"outputTokens"`
	CacheReadTokens *int `json:"cacheReadTokens,omitempty"`
	ReasoningTokens *int `json:"reasoningTokens,omitempty"`
}

// Error is an authored model failure.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RootKey is the playbook key of the root session.
const RootKey = "root"

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid playbook")

// Load reads and validates a playbook file.
func Load(path string) (*Playbook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("playbook: %w", err)
	}
	return Parse(b, path)
}

// Parse decodes and validates a playbook; name is used in errors.
func Parse(b []byte, name string) (*Playbook, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var pb Playbook
	if err := dec.Decode(&pb); err != nil {
		return nil, fmt.Errorf("playbook: %s: %w: %v", name, ErrInvalid, err)
	}
	if err := pb.Validate(); err != nil {
		return nil, fmt.Errorf("playbook: %s: %w", name, err)
	}
	return &pb, nil
}

// Validate checks the playbook and names the field of every problem.
func (pb *Playbook) Validate() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(pb.Sessions[RootKey]) == 0 {
		add("sessions.root: the root session has no model turns")
	}
	callIDs := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(pb.Sessions)) {
		for i, t := range pb.Sessions[key] {
			at := fmt.Sprintf("sessions.%s[%d]", key, i)
			if t == nil {
				add("%s: null turn", at)
				continue
			}
			if t.Text == "" && t.Reasoning == "" && len(t.ToolCalls) == 0 && t.Error == nil && !t.Hang {
				add("%s: a turn needs text, reasoning, toolCalls, error or hang", at)
			}
			switch t.Finish {
			case "", "stop", "tool-calls", "max-tokens":
			default:
				add("%s.finish: %q; use stop, tool-calls or max-tokens (or error for a failure)", at, t.Finish)
			}
			if t.Error != nil && t.Hang {
				add("%s: error and hang exclude each other", at)
			}
			if t.Error != nil && t.Error.Code == "" {
				add("%s.error.code: empty; give a code such as SERVER or RATE_LIMIT", at)
			}
			for j, c := range t.ToolCalls {
				cat := fmt.Sprintf("%s.toolCalls[%d]", at, j)
				if c.ID == "" || c.Name == "" {
					add("%s: id and name are required", cat)
				}
				if prev, dup := callIDs[c.ID]; dup && c.ID != "" {
					add("%s.id: %q is also used at %s; tool call ids must be unique in a playbook (children are keyed by them)", cat, c.ID, prev)
				}
				callIDs[c.ID] = cat
				var obj map[string]json.RawMessage
				if len(c.Arguments) > 0 && json.Unmarshal(c.Arguments, &obj) != nil {
					add("%s.arguments: must be a JSON object", cat)
				}
			}
		}
	}
	for key := range pb.Sessions {
		if key == RootKey {
			continue
		}
		if _, ok := callIDs[key]; !ok {
			add("sessions.%s: no tool call in the playbook has id %q; a child session is keyed by the id of the call that creates it", key, key)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return nil
}
