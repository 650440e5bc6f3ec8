package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
)

// Tool is something the model can call.
type Tool interface {
	// Spec describes the tool to the model; Parameters is a JSON Schema.
	Spec() llm.ToolSpec
	// Run executes one call. Failures the model should see are returned
	// as a Result with IsError set, not as a Go error: the loop goes on.
	Run(ctx context.Context, call *Call) Result
}

// ConcurrentTool is implemented by tools whose calls may run at the same
// time as the other concurrent calls of the same step (the subagent tools).
// Other tools run one after another in call order.
type ConcurrentTool interface {
	Tool
	Concurrent() bool
}

// Call is one tool call made by the model.
type Call struct {
	ID        string
	Name      string
	Arguments json.RawMessage // validated against the tool's schema
	Turn      int
	Step      int
	Session   *Session // the calling session

	turn     *turnRun
	childErr error // set by subagent tools when the child failed
}

// Result is what a tool call returns to the model.
type Result struct {
	Text    string
	IsError bool
}

// Errorf returns an error Result.
func Errorf(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// Registry holds the tools offered to the model, in registration order.
// It is read-only once a runtime uses it.
type Registry struct {
	tools []Tool
	index map[string]int
}

// NewRegistry returns a registry holding tools; it panics on an invalid
// spec or a duplicate name, which are programming errors.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{index: map[string]int{}}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}
	return r
}

// Add registers t. Its name must be unique and its parameters a JSON Schema
// object of type "object".
func (r *Registry) Add(t Tool) error {
	spec := t.Spec()
	if spec.Name == "" {
		return fmt.Errorf("agent: tool %T has no name", t)
	}
	if _, dup := r.index[spec.Name]; dup {
		return fmt.Errorf("agent: tool %q registered twice", spec.Name)
	}
	if _, err := parseSchema(spec.Parameters); err != nil {
		return fmt.Errorf("agent: tool %q: parameters: %w", spec.Name, err)
	}
	r.index[spec.Name] = len(r.tools)
	r.tools = append(r.tools, t)
	return nil
}

// Get returns the tool named name.
func (r *Registry) Get(name string) (Tool, bool) {
	i, ok := r.index[name]
	if !ok {
		return nil, false
	}
	return r.tools[i], true
}

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Spec().Name
	}
	return out
}

// Specs returns the tool specs in registration order.
func (r *Registry) Specs() []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Spec()
	}
	return out
}

// FuncTool is a Tool made of a spec and a function.
type FuncTool struct {
	Name        string
	Description string
	Parameters  string // JSON Schema text
	Fn          func(ctx context.Context, args json.RawMessage) (string, error)
}

// Spec implements Tool.
func (f *FuncTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.Name, Description: f.Description, Parameters: json.RawMessage(f.Parameters)}
}

// Run implements Tool: an error from Fn becomes an error result.
func (f *FuncTool) Run(ctx context.Context, call *Call) Result {
	out, err := f.Fn(ctx, call.Arguments)
	if err != nil {
		return Result{Text: err.Error(), IsError: true}
	}
	return Result{Text: out}
}

// schema is the subset of JSON Schema that argument validation checks: the
// object's required members and the JSON types of declared properties.
type schema struct {
	Type       string             `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
}

// parseSchema parses a tool's parameters. The schemas parsed are kept, a
// few hundred at most (a runtime's tools), since every session registers
// its tools and every call is checked against its tool's: the result is
// shared and must not be changed.
func parseSchema(raw json.RawMessage) (*schema, error) {
	if s, ok := schemas.Load(string(raw)); ok {
		return s.(*schema), nil
	}
	s, err := decodeSchema(raw)
	if err == nil && schemaCount.Add(1) <= maxSchemas {
		schemas.Store(string(raw), s)
	}
	return s, err
}

const maxSchemas = 512

var (
	schemas     sync.Map // parameters text -> *schema
	schemaCount atomic.Int64
)

func decodeSchema(raw json.RawMessage) (*schema, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing; give a JSON Schema such as {\"type\":\"object\",\"properties\":{}}")
	}
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema object: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`the schema's type is %q; tool parameters must be {"type":"object",...}`, s.Type)
	}
	return &s, nil
}

// validateArgs checks the model's arguments against the tool's schema and
// returns a message the model can act on.
func validateArgs(spec llm.ToolSpec, args json.RawMessage) error {
	s, err := parseSchema(spec.Parameters)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return fmt.Errorf("arguments of %s must be a JSON object, got %s", spec.Name, abbreviate(string(args), 80))
	}
	var problems []string
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			problems = append(problems, fmt.Sprintf("missing required %q", name))
		}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		p, ok := s.Properties[name]
		if !ok || p == nil || p.Type == "" {
			continue
		}
		if got := jsonType(obj[name]); !typeMatches(p.Type, got) {
			problems = append(problems, fmt.Sprintf("%q must be %s, got %s", name, p.Type, got))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid arguments for %s: %s", spec.Name, strings.Join(problems, "; "))
	}
	return nil
}

func jsonType(v json.RawMessage) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if strings.ContainsAny(string(v), ".eE") {
		return "number"
	}
	return "integer"
}

func typeMatches(want, got string) bool {
	return want == got || (want == "number" && got == "integer")
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
