package agentsnap_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/scenario"
)

// checked is a runtime with a name and a scenario check.
type checked struct {
	agentsnap.RuntimeFunc
	warnings []string
	err      error
}

func (checked) Name() string { return "checked" }

func (c checked) Validate(*scenario.Scenario) ([]string, error) { return c.warnings, c.err }

func TestValidateRunsTheRuntimesOwnCheck(t *testing.T) {
	errBad := errors.New("agent.tools[0]: unknown tool")
	rt := checked{warnings: []string{"agent.persnoa is ignored"}, err: errBad}
	warnings, err := agentsnap.Validate(rt, &scenario.Scenario{})
	if !errors.Is(err, errBad) || !slices.Equal(warnings, rt.warnings) {
		t.Errorf("Validate = %q, %v; want the runtime's own warnings and error", warnings, err)
	}
	if name := agentsnap.NameOf(rt); name != "checked" {
		t.Errorf("NameOf = %q, want the runtime's own name", name)
	}

	plain := agentsnap.RuntimeFunc(func(context.Context, *agentsnap.Env) error { return nil })
	if warnings, err := agentsnap.Validate(plain, &scenario.Scenario{}); warnings != nil || err != nil {
		t.Errorf("Validate of a runtime without a check = %q, %v; want nothing", warnings, err)
	}
	if name := agentsnap.NameOf(plain); name != "" {
		t.Errorf("NameOf of a runtime without a name = %q, want none", name)
	}
}

func prompts(n int, timeout time.Duration) *agentsnap.Env {
	return &agentsnap.Env{Scenario: &scenario.Scenario{
		Prompts:     slices.Repeat([]string{"go on"}, n),
		TurnTimeout: scenario.Duration(timeout),
	}}
}

func TestEachPromptStopsWhenTheRunsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var turns []int
	err := prompts(3, 0).EachPrompt(ctx, func(_ context.Context, i int, _ string) error {
		turns = append(turns, i)
		cancel() // the user stops the run during the first turn, which ends cleanly
		return nil
	})
	if !errors.Is(err, context.Canceled) || !slices.Equal(turns, []int{0}) {
		t.Errorf("EachPrompt = %v after turns %v; want context.Canceled after turn 0 only", err, turns)
	}
}

func TestEachPromptNamesTheFailedPromptCountingFromOne(t *testing.T) {
	errStore := errors.New("the store failed")
	var turns []int
	err := prompts(3, 0).EachPrompt(context.Background(), func(_ context.Context, i int, _ string) error {
		turns = append(turns, i)
		if i == 1 {
			return errStore
		}
		return nil
	})
	if !errors.Is(err, errStore) || err.Error() != "prompt 2: the store failed" || !slices.Equal(turns, []int{0, 1}) {
		t.Errorf("EachPrompt = %v after turns %v; want %q after turns [0 1]", err, turns, "prompt 2: the store failed")
	}
}

func TestEachPromptEndsEachTurnsTimeoutWhenTheTurnReturns(t *testing.T) {
	var turnCtxs []context.Context
	err := prompts(2, time.Hour).EachPrompt(context.Background(), func(ctx context.Context, _ int, _ string) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the turn's context has no deadline although the scenario sets turnTimeout")
		}
		turnCtxs = append(turnCtxs, ctx)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, ctx := range turnCtxs {
		// A turn's timeout must not outlive its turn (in a replay it runs on
		// the driver's virtual clock).
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("turn %d's context after EachPrompt: %v, want context.Canceled", i, ctx.Err())
		}
	}
}
