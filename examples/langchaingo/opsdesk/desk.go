// Package opsdesk is the ops assistant of a small platform team, written the
// way a langchaingo team writes one: an agents.OpenAIFunctionsAgent run by an
// agents.Executor on a langchaingo model (llms/openai in production), with
// tools. It knows nothing of how it is tested.
//
// The desk checks services (service_status), does sums (langchaingo's own
// tools.Calculator) and hands work to other agents through tools whose Call
// runs another executor — langchaingo's way to delegate:
//
//   - ask_researcher hands a self-contained question to a researcher agent
//     that starts with an empty conversation;
//   - ask_colleague, when the desk remembers its conversation, hands a
//     question to a colleague agent whose memory starts as a copy of the
//     desk's chat history: the questions and answers of the completed turns.
//
// With Remember the desk keeps its conversation in a
// memory.ConversationBuffer, so a follow-up question sees the earlier ones;
// without it every question starts afresh.
package opsdesk

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/tools"
)

// ResearcherPrompt is the system prompt of the agent ask_researcher runs.
const ResearcherPrompt = "You are a researcher on a platform team's ops desk. Answer the one question you are given from the service status and sums; reply with the facts only."

// historyKey is where the desk's memory puts the conversation in the prompt.
const historyKey = "history"

// Config is how a Desk is set up.
type Config struct {
	// LLM is the model every agent of the desk calls, set up by the
	// caller (base URL, token, HTTP client, model name).
	LLM llms.Model
	// System is the desk's system prompt; a colleague gets it too.
	System string
	// Remember keeps the conversation across questions. Without it each
	// question starts with an empty conversation.
	Remember bool
	// Options go with every run of every agent of the desk
	// (chains.WithTemperature, chains.WithMaxTokens, ...).
	Options []chains.ChainCallOption
	// MaxIterations bounds the model calls each agent makes for one
	// question; 0 means langchaingo's default.
	MaxIterations int
}

// Desk is the ops assistant: one conversation with a user.
type Desk struct {
	cfg     Config
	history *memory.ChatMessageHistory // the conversation, with Remember
	exec    *agents.Executor
}

// New sets up a desk.
func New(cfg Config) (*Desk, error) {
	if cfg.LLM == nil {
		return nil, errors.New("opsdesk: Config.LLM is nil; give the desk a langchaingo model (openai.New)")
	}
	if cfg.System == "" {
		return nil, errors.New("opsdesk: Config.System is empty; give the desk its system prompt")
	}
	d := &Desk{cfg: cfg}
	deskTools := []tools.Tool{serviceStatus{}, tools.Calculator{}, researcher{desk: d}}
	if cfg.Remember {
		d.history = memory.NewChatMessageHistory()
		deskTools = append(deskTools, colleague{desk: d})
	}
	d.exec = d.executor(cfg.System, deskTools, d.history)
	return d, nil
}

// Ask runs one question through the desk and returns its answer.
func (d *Desk) Ask(ctx context.Context, question string) (string, error) {
	answer, err := chains.Run(ctx, d.exec, question, d.cfg.Options...)
	if err != nil {
		return "", fmt.Errorf("opsdesk: %w", err)
	}
	return answer, nil
}

// executor builds an agent and its executor. With a history the agent
// remembers: the executor's memory is a ConversationBuffer on it, and the
// prompt renders it as a message between the system prompt and the
// question. (langchaingo's Executor takes string inputs only, so the
// buffer hands the history over as text, not as messages.)
func (d *Desk) executor(system string, ts []tools.Tool, history *memory.ChatMessageHistory) *agents.Executor {
	agentOpts := []agents.Option{agents.NewOpenAIOption().WithSystemMessage(system)}
	var execOpts []agents.Option
	if d.cfg.MaxIterations > 0 {
		execOpts = append(execOpts, agents.WithMaxIterations(d.cfg.MaxIterations))
	}
	if history != nil {
		agentOpts = append(agentOpts, agents.NewOpenAIOption().WithExtraMessages([]prompts.MessageFormatter{
			prompts.NewHumanMessagePromptTemplate("Previous conversation history:\n{{.history}}", []string{historyKey}),
		}))
		execOpts = append(execOpts, agents.WithMemory(memory.NewConversationBuffer(
			memory.WithChatHistory(history),
			memory.WithMemoryKey(historyKey),
		)))
	}
	return agents.NewExecutor(agents.NewOpenAIFunctionsAgent(d.cfg.LLM, ts, agentOpts...), execOpts...)
}

// delegate runs question through a child agent and returns its answer as
// the tool's result. A child that fails is reported to the model as the
// result, so the desk can go on without it.
func (d *Desk) delegate(ctx context.Context, who string, exec *agents.Executor, question string) string {
	answer, err := chains.Run(ctx, exec, question, d.cfg.Options...)
	if err != nil {
		return fmt.Sprintf("error: the %s failed: %v", who, err)
	}
	return answer
}
