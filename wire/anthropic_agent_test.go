package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
)

// claudeModel is the model the Anthropic SDK agent asks for.
const claudeModel = "claude-sonnet-4-5"

// claudeAgent is a small agent on the official Anthropic Go SDK, written
// the way a team writes one: a loop that streams (client.Messages.
// NewStreaming and Message.Accumulate) or asks for whole answers
// (client.Messages.New), runs its tools, sends the results of one answer
// back in one user message, and delegates to children, the children of
// one answer at once. Set its switches before its first turn.
type claudeAgent struct {
	client sdk.Client
	system string
	// Whole asks for whole answers instead of streams.
	Whole bool
	// MaxTokens is sent with every call (default 1024).
	MaxTokens int64
	// Thinking, when set, enables extended thinking with this budget.
	Thinking int64
	// StopSequences, when set, are sent with every call.
	StopSequences []string
	// Nudge, when set, is a text block sent after the tool results, in
	// the same user message.
	Nudge string
	// ForkAll makes a fork child inherit the running turn too.
	ForkAll bool
	// Turns, when set, is how many of the scenario's prompts to run.
	Turns int
	// Cache sets prompt cache breakpoints as Anthropic's guide has an
	// agent set them: on the system prompt, on the last tool and on the
	// last block of the conversation, which moves on with every call.
	Cache bool
	// Betas, when set, are sent with every call, an anthropic-beta header
	// each.
	Betas []string
	// Version, when set, is the anthropic-version header sent with every
	// call instead of the SDK's.
	Version string
	// Counts, when set, has the agent count each call's tokens first
	// (client.Messages.CountTokens) and keeps the answers.
	Counts *tokenCounts
	// Untagged runs the children on their parent's context: an agent
	// that names no sessions, for wire.InferLineage.
	Untagged bool
}

// newClaudeAgent returns the agent configured by scenario.json's agent
// member ({"system": "..."}) on a client made with opts. It sends a key of
// its own and never retries: a replay serves each recorded call once.
func newClaudeAgent(settings json.RawMessage, opts ...sdkoption.RequestOption) *claudeAgent {
	var cfg struct{ System string }
	_ = json.Unmarshal(settings, &cfg) // a missing prompt shows as drift
	opts = append([]sdkoption.RequestOption{sdkoption.WithAPIKey(claudeAgentKey), sdkoption.WithMaxRetries(0)}, opts...)
	return &claudeAgent{client: sdk.NewClient(opts...), system: cfg.System, MaxTokens: 1024}
}

// claudeAgentKey is the key the agent sends; the wire layer takes it for
// a secret of the recording.
const claudeAgentKey = "sk-ant-agent-key-0123456789"

// claudeRuntimeWith is the agent as the runtime under test, in process,
// with a change and handler options. Its agentsnap lines: the HTTP client,
// the base URL — the SDK appends v1/messages to it, so it takes the
// origin, not wire.BaseURL's /v1 — and the children's contexts.
func claudeRuntimeWith(change func(*claudeAgent), opts ...wire.Option) agentsnap.Runtime {
	return wire.Runtime("claude-test-agent", func(ctx context.Context, env *wire.Env) error {
		origin := strings.TrimSuffix(env.BaseURL, "/v1")
		a := newClaudeAgent(env.Scenario.Agent, sdkoption.WithBaseURL(origin), sdkoption.WithHTTPClient(env.HTTPClient))
		change(a)
		root := &claudeSession{agent: a}
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if a.Turns > 0 && i >= a.Turns {
				return nil
			}
			_, err := root.send(ctx, prompt)
			return err
		})
	}, opts...)
}

var claudeRuntime = claudeRuntimeWith(func(*claudeAgent) {})

// claudeSession is one conversation: the root's, or a child's.
type claudeSession struct {
	agent     *claudeAgent
	msgs      []sdk.MessageParam
	completed int // messages in its completed turns: what a fork inherits
}

// send runs one user turn: call the model, run the tools, send their
// results back, until an answer without tool calls, whose text it returns.
func (s *claudeSession) send(ctx context.Context, prompt string) (string, error) {
	s.msgs = append(s.msgs, sdk.NewUserMessage(sdk.NewTextBlock(prompt)))
	for {
		msg, err := s.complete(ctx)
		if err != nil {
			return "", err
		}
		s.msgs = append(s.msgs, msg.ToParam())
		var calls []sdk.ContentBlockUnion
		var text strings.Builder
		for _, b := range msg.Content {
			switch b.Type {
			case "tool_use":
				calls = append(calls, b)
			case "text":
				text.WriteString(b.Text)
			}
		}
		if len(calls) == 0 {
			s.completed = len(s.msgs)
			return text.String(), nil
		}
		blocks := s.runTools(ctx, calls)
		if s.agent.Nudge != "" {
			blocks = append(blocks, sdk.NewTextBlock(s.agent.Nudge))
		}
		s.msgs = append(s.msgs, sdk.NewUserMessage(blocks...))
	}
}

// complete makes one model call, streamed or whole.
func (s *claudeSession) complete(ctx context.Context) (sdk.Message, error) {
	a := s.agent
	params := sdk.MessageNewParams{
		Model:     sdk.Model(claudeModel),
		MaxTokens: a.MaxTokens,
		System:    []sdk.TextBlockParam{{Text: a.system}},
		Messages:  s.msgs,
		Tools:     claudeTools(),
	}
	if a.Thinking > 0 {
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(a.Thinking)
	}
	params.StopSequences = a.StopSequences
	if a.Cache {
		cacheBreakpoints(&params)
	}
	var opts []sdkoption.RequestOption
	if a.Version != "" {
		opts = append(opts, sdkoption.WithHeader("anthropic-version", a.Version))
	}
	for _, b := range a.Betas {
		opts = append(opts, sdkoption.WithHeaderAdd("anthropic-beta", b))
	}
	if a.Counts != nil {
		if err := a.Counts.count(ctx, a.client, params, opts...); err != nil {
			return sdk.Message{}, err
		}
	}
	if a.Whole {
		msg, err := a.client.Messages.New(ctx, params, opts...)
		if err != nil {
			return sdk.Message{}, err
		}
		return *msg, nil
	}
	stream := a.client.Messages.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var msg sdk.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			return msg, err
		}
	}
	return msg, stream.Err()
}

// claudeFacts is the lookup tool's table.
var claudeFacts = map[string]string{"release": "v2.4.1", "owner": "team-atlas"}

// runTools runs the calls of one answer, the children at once, and
// returns their tool_result blocks in call order.
func (s *claudeSession) runTools(ctx context.Context, calls []sdk.ContentBlockUnion) []sdk.ContentBlockParamUnion {
	results := make([]sdk.ContentBlockParamUnion, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		var args struct{ Prompt, Key string }
		_ = json.Unmarshal(c.Input, &args)
		switch c.Name {
		case "lookup":
			fact, ok := claudeFacts[args.Key]
			if !ok {
				fact = "no fact " + args.Key
			}
			results[i] = sdk.NewToolResultBlock(c.ID, fact, !ok)
		case "subagent_spawn", "subagent_fork":
			// Set up before any child runs: the parent's conversation does
			// not change until every child is done.
			child, cctx := s.child(ctx, c.ID, c.Name == "subagent_fork")
			wg.Go(func() {
				text, err := child.send(cctx, args.Prompt)
				if err != nil {
					results[i] = sdk.NewToolResultBlock(c.ID, fmt.Sprintf("the subagent failed: %v", err), true)
					return
				}
				results[i] = sdk.NewToolResultBlock(c.ID, text, false)
			})
		default:
			results[i] = sdk.NewToolResultBlock(c.ID, "unknown tool "+c.Name, true)
		}
	}
	wg.Wait()
	return results
}

// child creates the session that s's tool call callID creates, and the
// context of its calls.
func (s *claudeSession) child(ctx context.Context, callID string, fork bool) (*claudeSession, context.Context) {
	c := &claudeSession{agent: s.agent}
	tagged := ctx
	switch {
	case s.agent.Untagged:
	case fork:
		tagged = wire.Fork(ctx, callID)
	default:
		tagged = wire.Spawn(ctx, callID)
	}
	if !fork {
		return c, tagged
	}
	inherit := s.completed
	if s.agent.ForkAll {
		inherit = len(s.msgs)
	}
	c.msgs = slices.Clone(s.msgs[:inherit])
	c.completed = len(c.msgs)
	return c, tagged
}

// cacheBreakpoints marks params's system prompt, last tool and last
// block with an ephemeral cache_control. The last block is marked on a
// copy: the session's conversation keeps none, so the breakpoint of one
// call is gone from the next.
func cacheBreakpoints(params *sdk.MessageNewParams) {
	cc := sdk.NewCacheControlEphemeralParam()
	params.System[0].CacheControl = cc
	params.Tools[len(params.Tools)-1].OfTool.CacheControl = cc
	msgs := slices.Clone(params.Messages)
	last := *msgs[len(msgs)-1].OfUser // a call ends with the user's message
	last.Content = slices.Clone(last.Content)
	msgs[len(msgs)-1].OfUser = &last
	switch b := &last.Content[len(last.Content)-1]; {
	case b.OfText != nil:
		t := *b.OfText
		t.CacheControl = cc
		b.OfText = &t
	case b.OfToolResult != nil:
		r := *b.OfToolResult
		r.CacheControl = cc
		b.OfToolResult = &r
	}
	params.Messages = msgs
}

func claudeTools() []sdk.ToolUnionParam {
	tool := func(name, desc, field string) sdk.ToolUnionParam {
		t := sdk.ToolUnionParamOfTool(sdk.ToolInputSchemaParam{
			Properties: map[string]any{field: map[string]string{"type": "string"}},
			Required:   []string{field},
		}, name)
		t.OfTool.Description = sdk.String(desc)
		return t
	}
	return []sdk.ToolUnionParam{
		tool("lookup", "Look up a fact by key.", "key"),
		tool("subagent_spawn", "Delegate to a fresh subagent.", "prompt"),
		tool("subagent_fork", "Delegate to a subagent that knows this conversation.", "prompt"),
	}
}
