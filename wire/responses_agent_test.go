package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// respAgent is an agent on openai-go's Responses client, written the way
// a team writes one: a loop that streams (or takes whole answers), runs
// its tools, and delegates to children, the children of one answer at
// once. By default it chains its calls with previous_response_id (the
// server keeps the conversation); with Items it sends the whole
// conversation back as items, store false, as stateless agents do.
type respAgent struct {
	client openai.Client
	system string
	// Whole asks for whole answers instead of streams.
	Whole bool
	// Items sends the conversation as items (store false) instead of
	// naming the previous response.
	Items bool
	// ForkAll makes a fork child (with Items) inherit the running turn too.
	ForkAll bool
	// Untagged runs children on their parent's context, naming no session
	// (for lineage inference).
	Untagged bool
	// Temperature and MaxOutputTokens, when set, go with every call.
	Temperature     float64
	MaxOutputTokens int64
}

func newRespAgent(settings json.RawMessage, opts ...option.RequestOption) *respAgent {
	var cfg struct{ System string }
	_ = json.Unmarshal(settings, &cfg) // a missing prompt shows as drift
	opts = append([]option.RequestOption{option.WithAPIKey("unused"), option.WithMaxRetries(0)}, opts...)
	return &respAgent{client: openai.NewClient(opts...), system: cfg.System}
}

// respSession is one conversation.
type respSession struct {
	agent     *respAgent
	items     responses.ResponseInputParam // Items: the conversation so far
	completed int                          // Items: items in completed turns
	last      string                       // the last response's id
	turnEnd   string                       // the response that ended the last completed turn
}

func (a *respAgent) root() *respSession { return &respSession{agent: a} }

// Send runs one user turn of s and returns the final answer's text.
func (s *respSession) Send(ctx context.Context, prompt string) (string, error) {
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(prompt, responses.EasyInputMessageRoleUser)}
	prev := s.last
	for {
		if s.agent.Items {
			s.items = append(s.items, input...)
			input, prev = s.items, ""
		}
		resp, err := s.create(ctx, input, prev)
		if err != nil {
			return "", err
		}
		s.last = resp.ID
		var calls []responses.ResponseFunctionToolCall
		for _, it := range resp.Output {
			switch it.Type {
			case "function_call":
				calls = append(calls, it.AsFunctionCall())
			}
			if s.agent.Items {
				s.items = append(s.items, asInput(it))
			}
		}
		if len(calls) == 0 {
			s.completed, s.turnEnd = len(s.items), resp.ID
			return resp.OutputText(), nil
		}
		input, prev = nil, resp.ID
		for i, result := range s.runTools(ctx, calls) {
			out := responses.ResponseInputItemParamOfFunctionCallOutput(result)
			out.OfFunctionCallOutput.CallID = openai.String(calls[i].CallID)
			input = append(input, out)
		}
	}
}

// asInput is an output item as the next request sends it back.
func asInput(it responses.ResponseOutputItemUnion) responses.ResponseInputItemUnionParam {
	switch it.Type {
	case "message":
		p := it.AsMessage().ToParam()
		return responses.ResponseInputItemUnionParam{OfOutputMessage: &p}
	case "function_call":
		p := it.AsFunctionCall().ToParam()
		return responses.ResponseInputItemUnionParam{OfFunctionCall: &p}
	}
	p := it.AsReasoning().ToParam()
	return responses.ResponseInputItemUnionParam{OfReasoning: &p}
}

// create makes one model call, streamed or whole.
func (s *respSession) create(ctx context.Context, input responses.ResponseInputParam, prev string) (*responses.Response, error) {
	a := s.agent
	params := responses.ResponseNewParams{
		Model:        "responses-agent-model",
		Instructions: openai.String(a.system),
		Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools:        respTools(),
	}
	if prev != "" {
		params.PreviousResponseID = openai.String(prev)
	}
	if a.Items {
		params.Store = openai.Bool(false)
	}
	if a.Temperature != 0 {
		params.Temperature = openai.Float(a.Temperature)
	}
	if a.MaxOutputTokens != 0 {
		params.MaxOutputTokens = openai.Int(a.MaxOutputTokens)
	}
	if a.Whole {
		return a.client.Responses.New(ctx, params)
	}
	return readStream(a.client.Responses.NewStreaming(ctx, params))
}

// eventStream is what readStream reads (openai-go's stream).
type eventStream interface {
	Next() bool
	Current() responses.ResponseStreamEventUnion
	Err() error
	Close() error
}

// readStream reads a stream to its response.completed, checking what an
// accumulating client relies on: sequence numbers 0, 1, 2, …, and text
// deltas that make the completed response's text.
func readStream(stream eventStream) (*responses.Response, error) {
	defer stream.Close()
	var text strings.Builder
	var done *responses.Response
	for n := int64(0); stream.Next(); n++ {
		ev := stream.Current()
		if ev.SequenceNumber != n {
			return nil, fmt.Errorf("event %d (%s) has sequence_number %d", n, ev.Type, ev.SequenceNumber)
		}
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.AsResponseOutputTextDelta().Delta)
		case "response.completed":
			r := ev.AsResponseCompleted().Response
			done = &r
		case "response.failed", "response.incomplete":
			return nil, fmt.Errorf("the response ended %s", ev.Type)
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if done == nil {
		return nil, errors.New("the stream ended without response.completed")
	}
	if text.String() != done.OutputText() {
		return nil, fmt.Errorf("the text deltas say %q, the completed response %q", text.String(), done.OutputText())
	}
	return done, nil
}

// runTools runs the calls of one answer, the children at once, and
// returns their results in call order.
func (s *respSession) runTools(ctx context.Context, calls []responses.ResponseFunctionToolCall) []string {
	results := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		var args struct{ Prompt, Key string }
		_ = json.Unmarshal([]byte(c.Arguments), &args)
		switch c.Name {
		case "lookup":
			results[i] = map[string]string{"release": "v2.4.1", "owner": "team-atlas"}[args.Key]
		case "subagent_spawn", "subagent_fork":
			child, cctx := s.child(ctx, c.CallID, c.Name == "subagent_fork")
			wg.Go(func() {
				text, err := child.Send(cctx, args.Prompt)
				if err != nil {
					text = fmt.Sprintf("the subagent failed: %v", err)
				}
				results[i] = text
			})
		default:
			results[i] = "unknown tool " + c.Name
		}
	}
	wg.Wait()
	return results
}

// child creates the session s's call creates: a fork starts from s's
// completed turns (its last response, or its items).
func (s *respSession) child(ctx context.Context, callID string, fork bool) (*respSession, context.Context) {
	c := &respSession{agent: s.agent}
	tagged := func(tag func(context.Context, string) context.Context) context.Context {
		if s.agent.Untagged {
			return ctx
		}
		return tag(ctx, callID)
	}
	if !fork {
		return c, tagged(wire.Spawn)
	}
	c.last, c.turnEnd = s.turnEnd, s.turnEnd
	inherit := s.completed
	if s.agent.ForkAll {
		inherit = len(s.items)
	}
	c.items = slices.Clone(s.items[:inherit])
	c.completed = len(c.items)
	return c, tagged(wire.Fork)
}

func respTools() []responses.ToolUnionParam {
	fn := func(name, desc, field string) responses.ToolUnionParam {
		return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name:        name,
			Description: openai.String(desc),
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{field: map[string]string{"type": "string"}},
				"required":   []string{field},
			},
		}}
	}
	return []responses.ToolUnionParam{
		fn("lookup", "Look up a fact by key.", "key"),
		fn("subagent_spawn", "Delegate to a fresh subagent.", "prompt"),
		fn("subagent_fork", "Delegate to a subagent that knows this conversation.", "prompt"),
	}
}

// respRuntime is the Responses agent as the runtime under test, in
// process, with a change.
func respRuntime(change func(*respAgent), opts ...wire.Option) agentsnap.Runtime {
	return wire.Runtime("responses-test-agent", func(ctx context.Context, env *wire.Env) error {
		a := newRespAgent(env.Scenario.Agent, option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient))
		change(a)
		root := a.root()
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := root.Send(ctx, prompt)
			return err
		})
	}, opts...)
}

func chained(*respAgent) {}
