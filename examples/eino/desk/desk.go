// Package desk is the assistant of a small bookshop, built on CloudWeGo
// Eino's ADK as an Eino team writes one: a root adk.ChatModelAgent with a
// catalog tool, two helper agents offered as tools (adk.NewAgentTool) —
// scout gets only the question it is handed, critic gets the whole
// conversation (adk.WithFullChatHistoryAsInput) — and a cashier it hands
// the conversation over to (adk.SetSubAgents, transfer_to_agent). The
// package knows nothing of how it is tested.
package desk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// The names the model calls the desk's tools and agents by.
const (
	ToolCatalog  = "catalog"
	AgentRoot    = "folio"
	AgentScout   = "scout"
	AgentCritic  = "critic"
	AgentCashier = "cashier"
)

// Config is how a desk is set up.
type Config struct {
	// Model is the chat model of every agent of the desk, set up by the
	// caller (eino-ext's openai.NewChatModel: base URL, key, HTTP client).
	Model model.ToolCallingChatModel
	// Shop is the shop's name, as the assistant introduces itself.
	Shop string
	// ToolMiddlewares wrap every tool call of every agent of the desk
	// (Eino's compose.ToolMiddleware): tracing, metrics, auditing.
	ToolMiddlewares []compose.ToolMiddleware
}

// Desk is one conversation with the shop's assistant. Ask is serialised:
// an Eino ChatModelAgent must not run twice at once.
type Desk struct {
	mu      sync.Mutex
	runner  *adk.Runner
	history []adk.Message
}

// New sets up the desk's agents.
func New(ctx context.Context, cfg Config) (*Desk, error) {
	if cfg.Model == nil {
		return nil, errors.New("desk: Config.Model is required: pass an Eino chat model (eino-ext openai.NewChatModel)")
	}
	if cfg.Shop == "" {
		cfg.Shop = "the bookshop"
	}
	catalog, err := newCatalog()
	if err != nil {
		return nil, fmt.Errorf("desk: the catalog tool: %w", err)
	}
	scout, err := helperTool(ctx, cfg, catalog, AgentScout, "Hand a self-contained question about books to a scout, who looks it up in the catalog. It sees only the request you give it.",
		"You are Scout. Answer the request with the catalog tool, in one short sentence.", false)
	if err != nil {
		return nil, err
	}
	critic, err := helperTool(ctx, cfg, nil, AgentCritic, "Ask a critic who reads this whole conversation to check the advice given so far.",
		"You are Critic. Read the conversation and say in one sentence whether the advice given is sound.", true)
	if err != nil {
		return nil, err
	}
	cashier, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        AgentCashier,
		Description: "Takes over when the customer wants to buy: totals the order and says what it costs.",
		Instruction: "You are the cashier of " + cfg.Shop + ". Total the order with the catalog tool's prices and state the sum.",
		Model:       cfg.Model,
		ToolsConfig: toolsConfig(cfg, catalog),
	})
	if err != nil {
		return nil, fmt.Errorf("desk: the cashier: %w", err)
	}
	root, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        AgentRoot,
		Description: "The assistant of " + cfg.Shop + ".",
		Instruction: "You are Folio, the terse assistant of " + cfg.Shop + ". Use the catalog for facts, scouts for questions to look up, the critic to check your advice.",
		Model:       cfg.Model,
		ToolsConfig: toolsConfig(cfg, catalog, scout, critic),
	})
	if err != nil {
		return nil, fmt.Errorf("desk: the root agent: %w", err)
	}
	withCashier, err := adk.SetSubAgents(ctx, root, []adk.Agent{cashier})
	if err != nil {
		return nil, fmt.Errorf("desk: handing over to the cashier: %w", err)
	}
	return &Desk{runner: adk.NewRunner(ctx, adk.RunnerConfig{Agent: withCashier, EnableStreaming: true})}, nil
}

func toolsConfig(cfg Config, tools ...tool.BaseTool) adk.ToolsConfig {
	return adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools, ToolCallMiddlewares: cfg.ToolMiddlewares}}
}

// Ask runs one user turn and returns the desk's answer. The conversation
// goes on from the turns before.
func (d *Desk) Ask(ctx context.Context, question string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	msgs := append(slices.Clone(d.history), schema.UserMessage(question))
	events := d.runner.Run(ctx, msgs)
	answer := ""
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return "", fmt.Errorf("desk: agent %s: %w", ev.AgentName, ev.Err)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			return "", fmt.Errorf("desk: agent %s: reading its answer: %w", ev.AgentName, err)
		}
		msgs = append(msgs, msg)
		if msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
			answer = msg.Content
		}
	}
	d.history = inCallOrder(msgs)
	return answer, nil
}

// inCallOrder puts the tool messages that answer an assistant message in
// the order of its calls. Eino runs the calls of one answer at once and
// emits each result as its tool finishes, so the events hold them in
// completion order; kept so, the next turn would send a history that
// depends on which tool finished first.
func inCallOrder(msgs []adk.Message) []adk.Message {
	for i, m := range msgs {
		if m.Role != schema.Assistant || len(m.ToolCalls) < 2 {
			continue
		}
		end := i + 1
		for end < len(msgs) && msgs[end].Role == schema.Tool {
			end++
		}
		order := make(map[string]int, len(m.ToolCalls))
		for k, c := range m.ToolCalls {
			order[c.ID] = k
		}
		slices.SortStableFunc(msgs[i+1:end], func(a, b adk.Message) int { return order[a.ToolCallID] - order[b.ToolCallID] })
	}
	return msgs
}
