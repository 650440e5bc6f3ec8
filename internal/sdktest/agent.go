// Package sdktest is a small agent on the official OpenAI Go SDK for
// agentsnap's own tests of the wire layer, written the way a team writes
// one: a loop that streams, runs its tools and delegates to children, the
// children of one answer at once. The wire tests run it in process, a
// child's calls tagged with wire.Spawn or wire.Fork; serve's tests run it
// as an agent in another process would be, each call's session named in
// the Agentsnap-* headers.
package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Model is the model name the agent sends with every call.
const Model = "go-agent-model"

// facts is the lookup tool's table.
var facts = map[string]string{"release": "v2.4.1", "owner": "team-atlas"}

// Agent is the agent. Set its switches before its first turn.
type Agent struct {
	client openai.Client
	system string
	// Headers names each call's session in the Agentsnap-* headers, as an
	// agent in another process does; without it a child's calls carry
	// wire.Spawn or wire.Fork context tags.
	Headers bool
	// ForkAll makes a fork child inherit the whole conversation so far,
	// the running turn included: the mistake the wire layer must name.
	ForkAll bool
	// Whole asks for whole answers instead of streams.
	Whole bool
	// Untagged runs children on their parent's context, naming no session
	// (for lineage inference).
	Untagged bool
	// Temperature, when set, is sent with every call.
	Temperature float64
	// Lookup, when set, answers the lookup tool instead of the agent's
	// table, with the context of the calling session (an MCP server's
	// tool, say).
	Lookup func(ctx context.Context, key string) string
}

// New returns the agent configured by settings, scenario.json's agent
// member ({"system": "..."}), on a client made with opts (base URL, HTTP
// client). It sends a dummy key and never retries: a replay serves each
// recorded call once.
func New(settings json.RawMessage, opts ...option.RequestOption) *Agent {
	var cfg struct{ System string }
	_ = json.Unmarshal(settings, &cfg) // a missing prompt shows as drift
	opts = append([]option.RequestOption{option.WithAPIKey("unused"), option.WithMaxRetries(0)}, opts...)
	return &Agent{client: openai.NewClient(opts...), system: cfg.System}
}

// Session is one conversation: the root's, or a child's.
type Session struct {
	agent *Agent
	// id, parent, call and mode name the session in headers: the root is
	// "root", a child PARENT/CALL.
	id, parent, call, mode string
	msgs                   []openai.ChatCompletionMessageParamUnion
	completed              int // messages in its completed turns: what a fork inherits
}

// Root returns the root session, with an empty conversation.
func (a *Agent) Root() *Session { return &Session{agent: a, id: "root"} }

// Run runs prompts as the root session's turns, one after another.
func (a *Agent) Run(ctx context.Context, prompts []string) error {
	root := a.Root()
	for _, p := range prompts {
		if _, err := root.Send(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// Send runs one user turn of s: call the model, run the tools (children
// at once), send the results back in call order, until an answer without
// tool calls, whose text it returns.
func (s *Session) Send(ctx context.Context, prompt string) (string, error) {
	s.msgs = append(s.msgs, openai.UserMessage(prompt))
	for {
		msg, err := s.complete(ctx)
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
}

// complete makes one model call, streamed or whole.
func (s *Session) complete(ctx context.Context) (openai.ChatCompletionMessage, error) {
	a := s.agent
	params := openai.ChatCompletionNewParams{
		Model:    Model,
		Messages: append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.system)}, s.msgs...),
		Tools:    toolParams(),
	}
	if a.Temperature != 0 {
		params.Temperature = openai.Float(a.Temperature)
	}
	var opts []option.RequestOption
	if a.Headers {
		opts = s.headers()
	}
	if a.Whole {
		res, err := a.client.Chat.Completions.New(ctx, params, opts...)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		return res.Choices[0].Message, nil
	}
	stream := a.client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	return acc.Choices[0].Message, nil
}

func (s *Session) headers() []option.RequestOption {
	opts := []option.RequestOption{option.WithHeader(wire.HeaderSession, s.id)}
	if s.parent != "" {
		opts = append(opts, option.WithHeader(wire.HeaderParent, s.parent), option.WithHeader(wire.HeaderCall, s.call), option.WithHeader(wire.HeaderMode, s.mode))
	}
	return opts
}

// runTools runs the calls of one answer, the children at once, and
// returns their results in call order.
func (s *Session) runTools(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) []string {
	results := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, tc := range calls {
		var args struct{ Prompt, Key string }
		_ = json.Unmarshal([]byte(tc.Function.Arguments), &args)
		switch tc.Function.Name {
		case "lookup":
			if s.agent.Lookup != nil {
				results[i] = s.agent.Lookup(ctx, args.Key)
				continue
			}
			results[i] = facts[args.Key]
		case "subagent_spawn", "subagent_fork":
			// Set up before any child runs: the parent's conversation does
			// not change until every child is done.
			child, cctx := s.child(ctx, tc.ID, tc.Function.Name == "subagent_fork")
			wg.Go(func() {
				text, err := child.Send(cctx, args.Prompt)
				if err != nil {
					text = fmt.Sprintf("the subagent failed: %v", err)
				}
				results[i] = text
			})
		default:
			results[i] = "unknown tool " + tc.Function.Name
		}
	}
	wg.Wait()
	return results
}

// child creates the session that s's tool call callID creates, and the
// context of its calls.
func (s *Session) child(ctx context.Context, callID string, fork bool) (*Session, context.Context) {
	c := &Session{agent: s.agent, id: s.id + "/" + callID, parent: s.id, call: callID, mode: "spawn"}
	if fork {
		inherit := s.completed
		if s.agent.ForkAll {
			inherit = len(s.msgs)
		}
		c.mode, c.msgs = "fork", slices.Clone(s.msgs[:inherit])
		c.completed = len(c.msgs)
	}
	switch {
	case s.agent.Headers, s.agent.Untagged:
		return c, ctx
	case fork:
		return c, wire.Fork(ctx, callID)
	}
	return c, wire.Spawn(ctx, callID)
}

func toolParams() []openai.ChatCompletionToolUnionParam {
	fn := func(name, desc, field string) openai.ChatCompletionToolUnionParam {
		return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        name,
			Description: openai.String(desc),
			Parameters: shared.FunctionParameters{
				"type":       "object",
				"properties": map[string]any{field: map[string]string{"type": "string"}},
				"required":   []string{field},
			},
		})
	}
	return []openai.ChatCompletionToolUnionParam{
		fn("lookup", "Look up a fact by key.", "key"),
		fn("subagent_spawn", "Delegate to a fresh subagent.", "prompt"),
		fn("subagent_fork", "Delegate to a subagent that knows this conversation.", "prompt"),
	}
}
