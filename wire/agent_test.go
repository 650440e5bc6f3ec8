package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// sdkAgent is a small agent on the official OpenAI Go SDK, written the way a
// team writes one: a loop that streams, runs its tools and delegates to
// children, several at once. The only agentsnap lines are the HTTP client
// and the session contexts (wire.Spawn, wire.Fork).
type sdkAgent struct {
	client openai.Client
	system string
	// forkAll makes a fork child inherit the whole conversation so far,
	// the running turn included: the mistake the handler must name.
	forkAll bool
	// whole asks for whole answers instead of streams.
	whole bool
}

func newSDKAgent(env *wire.Env, system string) *sdkAgent {
	return &sdkAgent{
		client: openai.NewClient(
			option.WithBaseURL(env.BaseURL),
			option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"),
			option.WithMaxRetries(0),
		),
		system: system,
	}
}

var delegateParams = shared.FunctionParameters{
	"type":       "object",
	"properties": map[string]any{"prompt": map[string]string{"type": "string"}},
	"required":   []string{"prompt"},
}

func (a *sdkAgent) tools() []openai.ChatCompletionToolUnionParam {
	fn := func(name, desc string, params shared.FunctionParameters) openai.ChatCompletionToolUnionParam {
		return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: name, Description: openai.String(desc), Parameters: params})
	}
	return []openai.ChatCompletionToolUnionParam{
		fn("lookup", "Look up a fact by key.", shared.FunctionParameters{"type": "object", "properties": map[string]any{"key": map[string]string{"type": "string"}}, "required": []string{"key"}}),
		fn("subagent_spawn", "Delegate to a fresh subagent.", delegateParams),
		fn("subagent_fork", "Delegate to a subagent that knows this conversation.", delegateParams),
	}
}

// conversation is one session's history: the messages sent, and how many
// of them form its completed turns (what a fork inherits).
type conversation struct {
	msgs      []openai.ChatCompletionMessageParamUnion
	completed int
}

// turn runs one user turn of the session whose context is ctx.
func (a *sdkAgent) turn(ctx context.Context, c *conversation, prompt string) (string, error) {
	c.msgs = append(c.msgs, openai.UserMessage(prompt))
	for {
		params := openai.ChatCompletionNewParams{
			Model:    "agent-model",
			Messages: append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.system)}, c.msgs...),
			Tools:    a.tools(),
		}
		msg, err := a.complete(ctx, params)
		if err != nil {
			return "", err
		}
		c.msgs = append(c.msgs, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			c.completed = len(c.msgs)
			return msg.Content, nil
		}
		results := make([]string, len(msg.ToolCalls))
		var wg sync.WaitGroup
		for i, tc := range msg.ToolCalls {
			var args struct{ Prompt, Key string }
			_ = json.Unmarshal([]byte(tc.Function.Arguments), &args)
			switch tc.Function.Name {
			case "lookup":
				results[i] = map[string]string{"release": "v2.4.1"}[args.Key]
			case "subagent_spawn", "subagent_fork":
				child := &conversation{}
				cctx := wire.Spawn(ctx, tc.ID)
				if tc.Function.Name == "subagent_fork" {
					inherit := c.completed
					if a.forkAll {
						inherit = len(c.msgs)
					}
					child.msgs = append(child.msgs, c.msgs[:inherit]...)
					cctx = wire.Fork(ctx, tc.ID)
				}
				wg.Go(func() {
					text, err := a.turn(cctx, child, args.Prompt)
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
		for i, tc := range msg.ToolCalls {
			c.msgs = append(c.msgs, openai.ToolMessage(results[i], tc.ID))
		}
	}
}

// complete makes one model call, streamed or whole.
func (a *sdkAgent) complete(ctx context.Context, params openai.ChatCompletionNewParams) (openai.ChatCompletionMessage, error) {
	if a.whole {
		res, err := a.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		return res.Choices[0].Message, nil
	}
	stream := a.client.Chat.Completions.NewStreaming(ctx, params)
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	return acc.Choices[0].Message, nil
}

// sdkRuntime is the agent as the runtime under test.
var sdkRuntime = sdkRuntimeWith(func(*sdkAgent) {})

// sdkRuntimeWith is the agent with a change, under the same name.
func sdkRuntimeWith(change func(*sdkAgent)) agentsnap.Runtime {
	return wire.Runtime("sdk-test-agent", func(ctx context.Context, env *wire.Env) error {
		var cfg struct{ System string }
		_ = json.Unmarshal(env.Scenario.Agent, &cfg)
		a := newSDKAgent(env, cfg.System)
		change(a)
		root := &conversation{}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := a.turn(ctx, root, prompt)
			return err
		})
	})
}
