package mcpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

const (
	toolSpawn = "subagent_spawn"
	toolFork  = "subagent_fork"
)

// Agent is a chat agent on the OpenAI Chat Completions API whose tools
// are an MCP server's: it streams each answer, calls the tools the model
// asks for on the server and sends their results back until the model
// answers without tools. subagent_spawn starts a child with an empty
// conversation, subagent_fork one that inherits the completed turns; the
// children of one answer run at the same time.
type Agent struct {
	client openai.Client
	model  string
	system string
	mcp    *mcp.ClientSession
	tools  []openai.ChatCompletionToolUnionParam
	// childContext derives the context of a child's calls, model and MCP
	// alike, from its parent's (nil: the parent's own).
	childContext func(ctx context.Context, callID string, fork bool) context.Context
}

// Config sets up an Agent.
type Config struct {
	Client openai.Client      // the model API: base URL, key, HTTP client
	Model  string             // sent with every call
	System string             // the system prompt of every session
	Tools  *mcp.ClientSession // the MCP server whose tools the model gets
	// ChildContext, when set, derives the context of a child session's
	// calls from its parent's: callID is the tool call that creates the
	// child, fork tells subagent_fork from subagent_spawn.
	ChildContext func(ctx context.Context, callID string, fork bool) context.Context
}

// New lists the server's tools and returns the agent.
func New(ctx context.Context, cfg Config) (*Agent, error) {
	listed, err := cfg.Tools.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("mcpagent: listing the MCP server's tools: %w", err)
	}
	a := &Agent{client: cfg.Client, model: cfg.Model, system: cfg.System, mcp: cfg.Tools, childContext: cfg.ChildContext}
	for _, t := range listed.Tools {
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcpagent: tool %s: its input schema: %w", t.Name, err)
		}
		var params shared.FunctionParameters
		if err := json.Unmarshal(schema, &params); err != nil {
			return nil, fmt.Errorf("mcpagent: tool %s: its input schema is no JSON object: %w", t.Name, err)
		}
		a.tools = append(a.tools, function(t.Name, t.Description, params))
	}
	delegate := shared.FunctionParameters{"type": "object", "properties": map[string]any{"prompt": map[string]string{"type": "string"}}, "required": []string{"prompt"}}
	a.tools = append(a.tools,
		function(toolSpawn, "Hand a self-contained task to a new helper that sees only the prompt you give it.", delegate),
		function(toolFork, "Hand a task to a helper that knows this conversation up to the last finished exchange.", delegate))
	return a, nil
}

func function(name, desc string, params shared.FunctionParameters) openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: name, Description: openai.String(desc), Parameters: params})
}

// Session is one conversation: the root a user talks to, or a child.
type Session struct {
	agent     *Agent
	msgs      []openai.ChatCompletionMessageParamUnion
	completed int // messages of completed turns: what a fork inherits
}

// NewSession starts a root session.
func (a *Agent) NewSession() *Session { return &Session{agent: a} }

// Send runs one user turn and returns the model's final answer.
func (s *Session) Send(ctx context.Context, prompt string) (string, error) {
	s.msgs = append(s.msgs, openai.UserMessage(prompt))
	for range 16 {
		msg, err := s.call(ctx)
		if err != nil {
			return "", err
		}
		s.msgs = append(s.msgs, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			s.completed = len(s.msgs)
			return msg.Content, nil
		}
		for i, result := range s.runTools(ctx, msg.ToolCalls) {
			s.msgs = append(s.msgs, openai.ToolMessage(result, msg.ToolCalls[i].ID))
		}
	}
	return "", errors.New("mcpagent: the turn made 16 model calls without a final answer")
}

func (s *Session) call(ctx context.Context) (openai.ChatCompletionMessage, error) {
	a := s.agent
	stream := a.client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    a.model,
		Messages: append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.system)}, s.msgs...),
		Tools:    a.tools,
	})
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, fmt.Errorf("mcpagent: model call: %w", err)
	}
	if len(acc.Choices) == 0 {
		return openai.ChatCompletionMessage{}, errors.New("mcpagent: model call: the stream ended without an answer")
	}
	return acc.Choices[0].Message, nil
}

// runTools runs the calls of one answer — the server's tools one after
// another, the subagents at the same time — and returns their results in
// call order.
func (s *Session) runTools(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) []string {
	results := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, tc := range calls {
		name, args := tc.Function.Name, tc.Function.Arguments
		if name != toolSpawn && name != toolFork {
			results[i] = s.callTool(ctx, name, args)
			continue
		}
		var in struct {
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(args), &in); err != nil || in.Prompt == "" {
			results[i] = fmt.Sprintf(`error: %s wants {"prompt": "..."}, got %s`, name, args)
			continue
		}
		child, cctx := s.child(ctx, tc.ID, name == toolFork)
		wg.Go(func() {
			answer, err := child.Send(cctx, in.Prompt)
			if err != nil {
				answer = "error: the subagent failed: " + err.Error()
			}
			results[i] = answer
		})
	}
	wg.Wait()
	return results
}

// callTool calls one of the server's tools and returns its text, or the
// error the model should read.
func (s *Session) callTool(ctx context.Context, name, args string) string {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	res, err := s.agent.mcp.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		return "error: " + err.Error()
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	if res.IsError {
		return "error: " + strings.Join(text, " ")
	}
	return strings.Join(text, " ")
}

func (s *Session) child(ctx context.Context, callID string, fork bool) (*Session, context.Context) {
	c := &Session{agent: s.agent}
	if fork {
		c.msgs = slices.Clone(s.msgs[:s.completed])
		c.completed = len(c.msgs)
	}
	if s.agent.childContext != nil {
		ctx = s.agent.childContext(ctx, callID, fork)
	}
	return c, ctx
}
