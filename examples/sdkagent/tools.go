package sdkagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

const (
	toolWeather    = "weather"
	toolCalculator = "calculator"
	toolSpawn      = "subagent_spawn"
	toolFork       = "subagent_fork"
)

// forecasts is the weather tool's fixed table: the tools are deterministic,
// so what a model did with them replays byte for byte.
var forecasts = map[string]string{
	"Lisbon":  "sunny, 24°C",
	"Nairobi": "light rain, 19°C",
	"Oslo":    "snow, -3°C",
	"Zurich":  "cloudy, 12°C",
}

// Tool is a tool of the caller's: what the model is told about it, and
// Run, which gets the arguments as the model sent them (JSON) and returns
// the result the model reads. An error goes back to the model too, as
// "error: ...", so it may try again. Run is called from the goroutine of
// the session that calls the tool, several sessions at once.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments, an object.
	Parameters map[string]any
	Run        func(ctx context.Context, arguments string) (string, error)
}

// builtin are the names of the agent's own tools.
var builtin = []string{toolWeather, toolCalculator, toolSpawn, toolFork}

// checkTools refuses caller tools the model could not tell apart.
func (a *Agent) checkTools() error {
	seen := slices.Clone(builtin)
	for i, t := range a.Tools {
		switch {
		case t.Name == "" || t.Run == nil:
			return fmt.Errorf("sdkagent: Agent.Tools[%d] (%q) needs a Name and a Run", i, t.Name)
		case slices.Contains(seen, t.Name):
			return fmt.Errorf("sdkagent: Agent.Tools[%d] is named %q, like another tool; rename it (taken: %s)", i, t.Name, strings.Join(seen, ", "))
		}
		seen = append(seen, t.Name)
	}
	return nil
}

// toolParams is the tool list sent with each call; delegate adds the
// subagent tools.
func (a *Agent) toolParams(delegate bool) []openai.ChatCompletionToolUnionParam {
	fn := func(name, desc, arg, argDesc string) openai.ChatCompletionToolUnionParam {
		return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        name,
			Description: openai.String(desc),
			Parameters: shared.FunctionParameters{
				"type":       "object",
				"properties": map[string]any{arg: map[string]string{"type": "string", "description": argDesc}},
				"required":   []string{arg},
			},
		})
	}
	tools := []openai.ChatCompletionToolUnionParam{
		fn(toolWeather, "Today's weather in a city.", "city", "the city, e.g. Lisbon"),
		fn(toolCalculator, "Evaluate an arithmetic expression: numbers, + - * / and parentheses.", "expression", "e.g. (180 * 4) * 1.25"),
	}
	for _, t := range a.Tools {
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  t.Parameters,
		}))
	}
	if delegate {
		tools = append(tools,
			fn(toolSpawn, "Hand a self-contained task to a new helper that sees only the prompt you give it.", "prompt", "the helper's task, complete"),
			fn(toolFork, "Hand a task to a helper that knows this conversation up to the last finished exchange.", "prompt", "the helper's task"),
		)
	}
	return tools
}

// runTool runs a tool that is not a delegation and returns its result, an
// error included: the model reads it and may try again.
func (a *Agent) runTool(ctx context.Context, name, args string) string {
	var out string
	var err error
	switch name {
	case toolWeather:
		var in struct {
			City string `json:"city"`
		}
		if err = json.Unmarshal([]byte(args), &in); err == nil {
			out, err = Weather(in.City)
		}
	case toolCalculator:
		var in struct {
			Expression string `json:"expression"`
		}
		if err = json.Unmarshal([]byte(args), &in); err == nil {
			out, err = Calculate(in.Expression)
		}
	default:
		i := slices.IndexFunc(a.Tools, func(t Tool) bool { return t.Name == name })
		if i < 0 {
			names := []string{toolWeather, toolCalculator}
			for _, t := range a.Tools {
				names = append(names, t.Name)
			}
			return fmt.Sprintf("error: unknown tool %q (tools: %s; delegation only above the depth limit)", name, strings.Join(names, ", "))
		}
		out, err = a.Tools[i].Run(ctx, args)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

// Weather returns today's weather in city from a fixed table.
func Weather(city string) (string, error) {
	city = strings.TrimSpace(city)
	if f, ok := forecasts[city]; ok {
		return city + ": " + f, nil
	}
	return "", fmt.Errorf("no forecast for %q; known cities: %s", city, strings.Join(slices.Sorted(maps.Keys(forecasts)), ", "))
}

// Calculate evaluates an arithmetic expression of numbers, + - * / and
// parentheses, and formats the result in the fewest digits that read back
// to it.
func Calculate(expr string) (string, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return "", fmt.Errorf("cannot read %q: use numbers, + - * / and parentheses", expr)
	}
	v, err := eval(e)
	if err != nil {
		return "", fmt.Errorf("%q: %w", expr, err)
	}
	return strconv.FormatFloat(v, 'f', -1, 64), nil
}

func eval(e ast.Expr) (float64, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT && e.Kind != token.FLOAT {
			return 0, fmt.Errorf("%s is not a number", e.Value)
		}
		return strconv.ParseFloat(e.Value, 64)
	case *ast.ParenExpr:
		return eval(e.X)
	case *ast.UnaryExpr:
		x, err := eval(e.X)
		switch {
		case err != nil:
			return 0, err
		case e.Op == token.SUB:
			return -x, nil
		case e.Op == token.ADD:
			return x, nil
		}
	case *ast.BinaryExpr:
		x, err := eval(e.X)
		if err != nil {
			return 0, err
		}
		y, err := eval(e.Y)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case token.ADD:
			return x + y, nil
		case token.SUB:
			return x - y, nil
		case token.MUL:
			return x * y, nil
		case token.QUO:
			if y == 0 {
				return 0, errors.New("division by zero")
			}
			return x / y, nil
		}
	}
	return 0, errors.New("only numbers, + - * / and parentheses are allowed")
}
