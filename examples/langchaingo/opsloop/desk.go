// Package opsloop is the ops desk of package opsdesk written for
// langchaingo providers other than llms/openai: a tool loop on
// llms.Model.GenerateContent with llms.WithTools, the shape langchaingo's
// own Anthropic and Gemini tool-calling examples take. langchaingo v0.1.14's
// agents (agents.OpenAIFunctionsAgent) declare their tools with
// llms.WithFunctions, which llms/anthropic and llms/googleai do not read:
// on those providers the model is never told of a tool.
//
// The desk checks services (service_status), does sums (calculator, on
// langchaingo's tools.Calculator) and delegates:
//
//   - ask_researcher hands a self-contained question to a researcher that
//     starts with an empty conversation;
//   - ask_colleague hands a question to a colleague whose conversation
//     starts as a copy of the desk's completed turns, tool calls included.
//
// The desk remembers its conversation across questions. It knows nothing
// of how it is tested, nor which provider it runs on.
package opsloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ResearcherPrompt is the system prompt of the agent ask_researcher runs.
const ResearcherPrompt = "You are a researcher on a platform team's ops desk. Answer the one question you are given from the service status and sums; reply with the facts only."

// defaultMaxSteps bounds the model calls of one question when
// Config.MaxSteps is 0.
const defaultMaxSteps = 8

// Config is how a Desk is set up.
type Config struct {
	// LLM is the model every agent of the desk calls, set up by the
	// caller (base URL, key, HTTP client, model name).
	LLM llms.Model
	// System is the desk's system prompt; a colleague gets it too.
	System string
	// Researcher is the researcher's system prompt; "" means
	// ResearcherPrompt.
	Researcher string
	// Options go with every model call (llms.WithTemperature,
	// llms.WithMaxTokens, llms.WithStreamingFunc, ...).
	Options []llms.CallOption
	// MaxSteps bounds the model calls each agent makes for one question;
	// 0 means 8.
	MaxSteps int
}

// Desk is the ops assistant: one conversation with a user.
type Desk struct {
	cfg Config
	// history is the conversation of the completed turns: questions,
	// tool calls, tool results and answers, without the system prompt.
	history []llms.MessageContent
}

// New sets up a desk.
func New(cfg Config) (*Desk, error) {
	if cfg.LLM == nil {
		return nil, errors.New("opsloop: Config.LLM is nil; give the desk a langchaingo model (anthropic.New, googleai.New)")
	}
	if cfg.System == "" {
		return nil, errors.New("opsloop: Config.System is empty; give the desk its system prompt")
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = defaultMaxSteps
	}
	if cfg.Researcher == "" {
		cfg.Researcher = ResearcherPrompt
	}
	return &Desk{cfg: cfg}, nil
}

// Ask runs one question through the desk and returns its answer. The turn
// joins the desk's history only when it completes.
func (d *Desk) Ask(ctx context.Context, question string) (string, error) {
	conv := append(slices.Clone(d.history), human(question))
	answer, conv, err := d.run(ctx, d.cfg.System, d.tools(), conv)
	if err != nil {
		return "", fmt.Errorf("opsloop: %w", err)
	}
	d.history = conv
	return answer, nil
}

// run calls the model with conv until it answers without tool calls, and
// returns the answer and the conversation with the turn in it.
func (d *Desk) run(ctx context.Context, system string, ts []tool, conv []llms.MessageContent) (string, []llms.MessageContent, error) {
	opts := append(slices.Clone(d.cfg.Options), llms.WithTools(declare(ts)))
	for range d.cfg.MaxSteps {
		msgs := append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, system)}, conv...)
		resp, err := d.cfg.LLM.GenerateContent(ctx, msgs, opts...)
		if err != nil {
			return "", conv, err
		}
		text, calls := read(resp)
		if len(calls) == 0 {
			return text, append(conv, llms.TextParts(llms.ChatMessageTypeAI, text)), nil
		}
		// One assistant message per call, each followed by its result:
		// llms/anthropic sends only the first part of an assistant
		// message, so several calls in one message would lose all but one.
		for _, c := range calls {
			out := d.call(ctx, ts, c)
			conv = append(conv,
				llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{c}},
				llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
					ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: out, // Gemini pairs results by name, Anthropic by id
				}}},
			)
		}
	}
	return "", conv, fmt.Errorf("no answer after %d model calls", d.cfg.MaxSteps)
}

// read returns an answer's text and tool calls. Providers differ in where
// they put them: llms/anthropic makes one choice of each content block,
// llms/googleai one choice of each candidate.
func read(resp *llms.ContentResponse) (string, []llms.ToolCall) {
	var text strings.Builder
	var calls []llms.ToolCall
	for _, c := range resp.Choices {
		text.WriteString(c.Content)
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall != nil {
				calls = append(calls, tc)
			}
		}
	}
	return text.String(), calls
}

// call runs one tool call and returns its result. A failure is the result,
// so the model can go on without it.
func (d *Desk) call(ctx context.Context, ts []tool, c llms.ToolCall) string {
	i := slices.IndexFunc(ts, func(t tool) bool { return t.name == c.FunctionCall.Name })
	if i < 0 {
		return fmt.Sprintf("error: no tool %q", c.FunctionCall.Name)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(c.FunctionCall.Arguments), &args); err != nil {
		return fmt.Sprintf("error: the arguments of %s are not a JSON object: %v", c.FunctionCall.Name, err)
	}
	arg, _ := args[ts[i].param].(string)
	out, err := ts[i].run(ctx, arg)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

func human(text string) llms.MessageContent {
	return llms.TextParts(llms.ChatMessageTypeHuman, text)
}
