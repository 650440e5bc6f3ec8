package ownloop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Tool names.
const (
	ToolConvert   = "convert"
	ToolWordcount = "wordcount"
	ToolSpawn     = "subagent_spawn"
	ToolFork      = "subagent_fork"
)

// ToolNames lists every tool ownloop has.
var ToolNames = []string{ToolConvert, ToolWordcount, ToolSpawn, ToolFork}

// Rates is convert's fixed rate table: the value of one unit in USD.
// Fixed, so a tool result never depends on the day it is replayed.
var Rates = map[string]float64{"USD": 1, "EUR": 1.10, "GBP": 1.25, "CHF": 1.12, "JPY": 0.0068}

// currencies lists Rates' keys, sorted.
var currencies = slices.Sorted(func(yield func(string) bool) {
	for k := range Rates {
		if !yield(k) {
			return
		}
	}
})

// specs are the tools as offered to the model.
var specs = map[string]llm.ToolSpec{
	ToolConvert: {
		Name:        ToolConvert,
		Description: "Convert an amount of money between currencies at the fixed house rates.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string","enum":` + mustJSON(currencies) + `},"to":{"type":"string","enum":` + mustJSON(currencies) + `}},"required":["amount","from","to"]}`),
	},
	ToolWordcount: {
		Name:        ToolWordcount,
		Description: "Count the words of a text.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	},
	ToolSpawn: {
		Name:        ToolSpawn,
		Description: "Hand a task to a fresh helper that sees only the task. Returns the helper's answer.",
		Parameters:  json.RawMessage(delegateSchema),
	},
	ToolFork: {
		Name:        ToolFork,
		Description: "Hand a task to a helper that knows this conversation's finished turns. Returns the helper's answer.",
		Parameters:  json.RawMessage(delegateSchema),
	},
}

const delegateSchema = `{"type":"object","properties":{"task":{"type":"string","description":"everything the helper must do, in one message"}},"required":["task"]}`

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// delegationMode returns the child mode of a delegation tool.
func delegationMode(name string) (session.Mode, bool) {
	switch name {
	case ToolSpawn:
		return session.ModeSpawn, true
	case ToolFork:
		return session.ModeFork, true
	}
	return "", false
}

// toolSpecs returns the specs of the tools offered at depth: every listed
// tool, but no delegation once the depth limit is reached.
func (set *Settings) toolSpecs(depth int) []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, name := range set.Tools {
		if _, deleg := delegationMode(name); deleg && depth >= set.MaxDepth {
			continue
		}
		out = append(out, specs[name])
	}
	return out
}

// systemPrompt is the system prompt of a session at depth: the persona,
// then one line per tool offered.
func (set *Settings) systemPrompt(tools []llm.ToolSpec) string {
	var b strings.Builder
	b.WriteString(set.Persona)
	if len(tools) > 0 {
		b.WriteString("\n\nYour tools:")
		for _, t := range tools {
			fmt.Fprintf(&b, "\n- %s: %s", t.Name, t.Description)
		}
	}
	return b.String()
}

// result is a tool's answer to the model.
type result struct {
	text    string
	isError bool
}

func errorf(format string, args ...any) result {
	return result{text: fmt.Sprintf(format, args...), isError: true}
}

// convert runs the convert tool.
func convert(args json.RawMessage) result {
	var a struct {
		Amount *float64 `json:"amount"`
		From   string   `json:"from"`
		To     string   `json:"to"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return errorf("convert: invalid arguments: %v", err)
	}
	if a.Amount == nil {
		return errorf("convert: amount is missing")
	}
	from, okFrom := Rates[strings.ToUpper(a.From)]
	to, okTo := Rates[strings.ToUpper(a.To)]
	if !okFrom || !okTo {
		return errorf("convert: unknown currency in %s -> %s; known: %s", a.From, a.To, strings.Join(currencies, ", "))
	}
	return result{text: fmt.Sprintf("%.2f %s = %.2f %s", *a.Amount, strings.ToUpper(a.From), *a.Amount*from/to, strings.ToUpper(a.To))}
}

// wordcount runs the wordcount tool.
func wordcount(args json.RawMessage) result {
	var a struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return errorf("wordcount: invalid arguments: %v", err)
	}
	if a.Text == nil {
		return errorf("wordcount: text is missing")
	}
	return result{text: fmt.Sprintf("%d words", len(strings.Fields(*a.Text)))}
}

// delegateTask reads a delegation call's arguments.
func delegateTask(args json.RawMessage) (string, error) {
	var a struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("invalid arguments: %v", err)
	}
	if strings.TrimSpace(a.Task) == "" {
		return "", fmt.Errorf(`"task" is empty; say what the helper should do`)
	}
	return a.Task, nil
}

// has reports whether the settings list the tool.
func (set *Settings) has(name string) bool { return slices.Contains(set.Tools, name) }
