package scenario

import (
	"context"
	"time"

	"github.com/agentsnap/agentsnap/agent"
)

// Drive runs the scenario's prompts, in order, as user turns of s — each
// bounded by turnTimeout when set — the same way when recording and when
// replaying. after sees every turn's outcome (prompt is 0-based); an error
// from it, or ctx ending, stops the run and is returned.
func (sc *Scenario) Drive(ctx context.Context, s *agent.Session, after func(prompt int, res agent.TurnResult, err error) error) error {
	for i, prompt := range sc.Prompts {
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if sc.TurnTimeout > 0 {
			tctx, cancel = context.WithTimeout(ctx, time.Duration(sc.TurnTimeout))
		}
		res, err := s.Turn(tctx, prompt)
		cancel()
		if err := after(i, res, err); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
