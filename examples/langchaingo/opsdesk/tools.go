package opsdesk

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/tools"
)

// statuses is what service_status reports, fixed so a replay is
// byte-stable.
var statuses = map[string]string{
	"auth":     "down since 09:42 UTC: the signing certificate expired",
	"billing":  "degraded since 09:10 UTC: p95 latency 2400 ms, error rate 1.8%",
	"checkout": "operational: p95 latency 320 ms",
	"search":   "operational: p95 latency 180 ms",
}

// serviceStatus reports the status of one service.
type serviceStatus struct{}

var _ tools.Tool = serviceStatus{}

func (serviceStatus) Name() string { return "service_status" }

func (serviceStatus) Description() string {
	return "The current status of one service. The input is the service name: auth, billing, checkout or search."
}

func (serviceStatus) Call(_ context.Context, input string) (string, error) {
	name := strings.ToLower(strings.TrimSpace(input))
	if s, ok := statuses[name]; ok {
		return name + ": " + s, nil
	}
	return fmt.Sprintf("unknown service %q; known services: %s", input, strings.Join(slices.Sorted(maps.Keys(statuses)), ", ")), nil
}

// researcher is ask_researcher: a child agent with an empty conversation.
type researcher struct{ desk *Desk }

var _ tools.Tool = researcher{}

func (researcher) Name() string { return "ask_researcher" }

func (researcher) Description() string {
	return "Hand one self-contained research question to a researcher, who starts fresh and can check services and do sums. The input is the whole question."
}

func (r researcher) Call(ctx context.Context, input string) (string, error) {
	exec := r.desk.executor(ResearcherPrompt, []tools.Tool{serviceStatus{}, tools.Calculator{}}, nil)
	return r.desk.delegate(ctx, "researcher", exec, input), nil
}

// colleague is ask_colleague: a child agent whose memory starts as a copy
// of the desk's conversation so far. The copy is taken when the colleague
// is asked, so it holds the completed turns only (langchaingo saves a turn
// to memory when the turn ends), and what the colleague is told does not
// flow back into the desk's memory.
type colleague struct{ desk *Desk }

var _ tools.Tool = colleague{}

func (colleague) Name() string { return "ask_colleague" }

func (colleague) Description() string {
	return "Hand a question to a colleague who has read this conversation so far and can check services and do sums. The input is the question."
}

func (c colleague) Call(ctx context.Context, input string) (string, error) {
	msgs, err := c.desk.history.Messages(ctx)
	if err != nil {
		return "", fmt.Errorf("opsdesk: reading the conversation for a colleague: %w", err)
	}
	history := memory.NewChatMessageHistory(memory.WithPreviousMessages(slices.Clone(msgs)))
	exec := c.desk.executor(c.desk.cfg.System, []tools.Tool{serviceStatus{}, tools.Calculator{}}, history)
	return c.desk.delegate(ctx, "colleague", exec, input), nil
}
