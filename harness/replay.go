package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/internal/placeholder"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// Options tune a replay. The zero value replays into memory with the real
// script derivation.
type Options struct {
	// Store returns the store the replay persists through (default: a new
	// in-memory store). The replay closes it.
	Store func() (persistence.Store, error)
	// Deriver replaces script derivation; the regression suite passes a
	// broken one to prove what the seed slice prevents.
	Deriver fakellm.Deriver
	// Logf receives the replay driver's notes.
	Logf func(format string, args ...any)
}

// replayEpoch is the replay's clock: times are normalised away, a fixed
// clock keeps replayed logs byte-stable.
var replayEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Replay runs the fixture's prompts through the agent runtime against a
// fakellm driver built from the fixture's logs, then compares every replayed
// log with its fixture and renders the transcript. It returns an error only
// when the replay could not run at all; mismatches are in the Outcome.
func Replay(ctx context.Context, fx *Fixture, opts Options) (*Outcome, error) {
	fopts := []fakellm.Option{fakellm.WithRecordCommand(fx.RecordCommand())}
	if fx.Override != nil {
		fopts = append(fopts, fakellm.WithOverride(fx.Override))
	}
	if opts.Deriver != nil {
		fopts = append(fopts, fakellm.WithDeriver(opts.Deriver))
	}
	if opts.Logf != nil {
		fopts = append(fopts, fakellm.WithLogf(opts.Logf))
	}
	drv, err := fakellm.New(fx.Logs, fopts...)
	if err != nil {
		return nil, fmt.Errorf("harness: %s: %w", fx.Name, err)
	}
	open := opts.Store
	if open == nil {
		open = func() (persistence.Store, error) { return memory.New(), nil }
	}
	store, err := open()
	if err != nil {
		return nil, fmt.Errorf("harness: %s: opening the store: %w", fx.Name, err)
	}
	defer store.Close()

	o := &Outcome{Fixture: fx, driver: drv}
	if err := runPrompts(ctx, fx, drv, store, o); err != nil {
		return nil, err
	}
	o.Replayed, err = collect(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("harness: %s: reading the replayed logs: %w", fx.Name, err)
	}
	o.compare()
	return o, nil
}

// runPrompts drives the scenario's prompts as the recorder did.
func runPrompts(ctx context.Context, fx *Fixture, drv *fakellm.Driver, store persistence.Store, o *Outcome) error {
	sc := fx.Scenario
	cwd, _ := os.Getwd()
	cfg := agent.Config{
		Driver: drv,
		Store:  store,
		Cwd:    cwd,
		Clock:  agent.FixedClock(replayEpoch),
		IDs:    agent.LineageIDs("root"),
	}
	if sc.Recorded != nil {
		cfg.Provider, cfg.Model = sc.Recorded.Provider, sc.Recorded.Model
	}
	if err := sc.Configure(&cfg); err != nil {
		return fmt.Errorf("harness: %s: %w", fx.Name, err)
	}
	rt, err := agent.New(cfg)
	if err != nil {
		return fmt.Errorf("harness: %s: %w", fx.Name, err)
	}
	s, err := rt.NewSession(ctx)
	if err != nil {
		return fmt.Errorf("harness: %s: %w", fx.Name, err)
	}
	err = sc.Drive(ctx, s, func(i int, res agent.TurnResult, err error) error {
		if err != nil {
			o.RunErrors = append(o.RunErrors, fmt.Errorf("prompt %d: %w", i+1, err))
		}
		for _, e := range res.Errors {
			if errors.Is(e, agent.ErrNotStarted) {
				o.RunErrors = append(o.RunErrors, fmt.Errorf("prompt %d: subagent: %w", i+1, e))
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("harness: %s: %w", fx.Name, err)
	}
	return nil
}

// collect loads every session of the store in lineage order.
func collect(ctx context.Context, store persistence.Store) ([]*session.Log, error) {
	logs, err := persistence.LoadAll(ctx, store)
	if err != nil {
		return nil, err
	}
	return session.LineageOrder(logs)
}

// compare fills the verdict: drift, per-session differences, consumption
// and the transcript.
func (o *Outcome) compare() {
	pairs := pairSessions(o.Fixture.Logs, o.Replayed)
	// Only ids that differ need rewriting; with lineage ids (recorder and
	// replay both use them) there are none, and events compare as encoded.
	ids := map[string]string{}
	for _, p := range pairs {
		if p.golden != nil && p.replay != nil && p.replay.Header.ID != p.golden.Header.ID {
			ids[p.replay.Header.ID] = p.golden.Header.ID
		}
	}
	n := &normalizer{ids: ids, paths: placeholder.Defaults()}
	for _, p := range pairs {
		d := compareSession(p, n)
		if d == nil {
			continue
		}
		// A session whose first difference is a request/header drifted:
		// the agent sent something else before anything else went wrong.
		// A request that differs after an earlier difference is a
		// consequence and stays a plain difference.
		if d.Type == session.TypeRequestHeader && o.Drift == nil {
			if drift := driftAt(p, d.Seq); drift != nil {
				o.Drift = drift
				continue
			}
		}
		o.Differences = append(o.Differences, *d)
	}
	o.Consumption = o.driver.Check()
	for _, l := range o.Replayed {
		for i := range l.Own() {
			if l.Own()[i].Type == session.TypeRequestHeader {
				o.Calls++
			}
		}
	}
	if len(o.Replayed) > 0 {
		text, err := transcript.Render(o.Replayed)
		if err != nil {
			o.RunErrors = append(o.RunErrors, err)
		}
		o.Transcript = text
	}
}
