package sdkagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
)

// Agent is a chat agent on the OpenAI Chat Completions API: it streams
// each answer (or asks for it whole), runs the tools the model calls and
// sends their results back until the model answers without tools. It
// delegates with two tools: subagent_spawn starts a child with an empty
// conversation, subagent_fork a child that inherits the parent's
// completed turns. The children of one answer run at the same time.
//
// An Agent is safe for concurrent use once set up; its sessions are not.
type Agent struct {
	// Client is the model API, set up by the caller (base URL, key, HTTP
	// client, retries).
	Client openai.Client
	// Model is the model name sent with every call.
	Model string
	// System is the system prompt of every session, children included.
	System string
	// Temperature, when set (openai.Float(0.2)), is sent with every call;
	// unset, the model's default applies.
	Temperature param.Opt[float64]
	// WholeAnswers asks for each answer in one response instead of a
	// stream: for an endpoint or a proxy that does not stream.
	WholeAnswers bool
	// Tools are the caller's own tools, offered after weather and
	// calculator; their names must differ from the built-in ones.
	Tools []Tool
	// MaxDepth bounds delegation: a session at depth MaxDepth (the root is
	// depth 0) is not offered the subagent tools. 0 means 1: the root
	// delegates, its children do not.
	MaxDepth int
	// MaxSteps bounds the model calls of one turn; 0 means 16.
	MaxSteps int
	// ChildContext, when set, derives the context of a child session's
	// model calls from its parent's: callID is the tool call that creates
	// the child, fork tells subagent_fork from subagent_spawn. Tracing
	// hooks in here; so does a test that needs to tell sessions apart.
	ChildContext func(ctx context.Context, callID string, fork bool) context.Context
}

// Session is one conversation with an Agent: the root a user talks to, or
// a child a tool call created.
type Session struct {
	agent *Agent
	depth int
	msgs  []openai.ChatCompletionMessageParamUnion
	// completed is how many of msgs form completed turns: what a fork
	// inherits.
	completed int
}

// NewSession starts a root session with an empty conversation.
func (a *Agent) NewSession() *Session { return &Session{agent: a} }

// Send runs one user turn and returns the model's final answer.
func (s *Session) Send(ctx context.Context, prompt string) (string, error) {
	a := s.agent
	maxSteps := a.MaxSteps
	if maxSteps == 0 {
		maxSteps = 16
	}
	if err := a.checkTools(); err != nil {
		return "", err
	}
	s.msgs = append(s.msgs, openai.UserMessage(prompt))
	for range maxSteps {
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
	return "", fmt.Errorf("sdkagent: the turn made %d model calls without a final answer; raise Agent.MaxSteps or check the tools' results", maxSteps)
}

// call makes one model call and returns the assembled answer.
func (s *Session) call(ctx context.Context) (openai.ChatCompletionMessage, error) {
	a := s.agent
	params := openai.ChatCompletionNewParams{
		Model:       a.Model,
		Messages:    append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.System)}, s.msgs...),
		Tools:       a.toolParams(s.delegates()),
		Temperature: a.Temperature,
	}
	if a.WholeAnswers {
		res, err := a.Client.Chat.Completions.New(ctx, params)
		if err != nil {
			return openai.ChatCompletionMessage{}, fmt.Errorf("sdkagent: model call: %w", err)
		}
		if len(res.Choices) == 0 {
			return openai.ChatCompletionMessage{}, errors.New("sdkagent: model call: the answer has no choices; check the endpoint speaks Chat Completions")
		}
		return res.Choices[0].Message, nil
	}
	stream := a.Client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, fmt.Errorf("sdkagent: model call: %w", err)
	}
	if len(acc.Choices) == 0 {
		return openai.ChatCompletionMessage{}, errors.New("sdkagent: model call: the stream ended without an answer; check the endpoint speaks Chat Completions streaming, or set Agent.WholeAnswers")
	}
	return acc.Choices[0].Message, nil
}

// delegates reports whether this session may create children.
func (s *Session) delegates() bool {
	limit := s.agent.MaxDepth
	if limit == 0 {
		limit = 1
	}
	return s.depth < limit
}

// runTools runs the calls of one answer, the subagents at the same time,
// and returns their results in call order.
func (s *Session) runTools(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) []string {
	results := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, tc := range calls {
		name, args := tc.Function.Name, tc.Function.Arguments
		if (name != toolSpawn && name != toolFork) || !s.delegates() {
			results[i] = s.agent.runTool(ctx, name, args)
			continue
		}
		var in struct {
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(args), &in); err != nil || in.Prompt == "" {
			results[i] = fmt.Sprintf(`error: %s wants {"prompt": "..."}, got %s`, name, args)
			continue
		}
		// The child is set up here, before any child runs: a fork copies
		// the completed turns, which the parent does not touch until every
		// child is done.
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

// child creates the session of a subagent and the context of its calls.
func (s *Session) child(ctx context.Context, callID string, fork bool) (*Session, context.Context) {
	c := &Session{agent: s.agent, depth: s.depth + 1}
	if fork {
		c.msgs = slices.Clone(s.msgs[:s.completed])
		c.completed = len(c.msgs)
	}
	if s.agent.ChildContext != nil {
		ctx = s.agent.ChildContext(ctx, callID, fork)
	}
	return c, ctx
}
