package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/internal/wait"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Errors of a turn, for errors.Is.
var (
	// ErrBusy is returned when Turn is called on a session whose turn is running.
	ErrBusy = errors.New("agent: session is already running a turn; wait for that Turn to return before starting the next")
	// ErrNotStarted wraps a driver's refusal to start a model call (no
	// route, no script, exhausted playbook), as opposed to a model failure.
	ErrNotStarted = errors.New("model call could not start")
)

// TurnResult is the outcome of one turn.
type TurnResult struct {
	Turn   int
	Reason session.EndReason
	// Text is the text of the turn's last assistant message.
	Text string
	// Errors lists what went wrong below this turn without stopping it:
	// subagents whose turn failed (their parent got an error tool result).
	Errors []error
}

// Turn runs one user turn with prompt and returns when it has ended. The
// returned error is non-nil when the turn could not run or record (the model
// call could not start, the store failed); a model error finish or a
// cancelled context ends the turn with that reason and a nil error.
func (s *Session) Turn(ctx context.Context, prompt string) (TurnResult, error) {
	return s.runTurn(ctx, prompt, "user")
}

func (s *Session) runTurn(ctx context.Context, prompt, trigger string) (res TurnResult, err error) {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return res, ErrBusy
	}
	s.running = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()

	turn := s.j.StartTurn(trigger, journal.UserText(prompt))
	res.Turn = turn
	t := &turnRun{s: s, turn: turn}
	if on := s.rt.cfg.OnTurn; on != nil {
		on(TurnEvent{Session: s.j.Ref(), Turn: turn})
	}
	reason, runErr := t.steps(ctx)
	if err := s.j.EndTurn(ctx, reason); err != nil {
		return res, errors.Join(runErr, fmt.Errorf("agent: %w", err))
	}
	res.Reason, res.Text, res.Errors = reason, t.lastText, t.childErrors
	if on := s.rt.cfg.OnTurn; on != nil {
		on(TurnEvent{Session: s.j.Ref(), Turn: turn, Ended: true, Reason: reason})
	}
	s.rt.cfg.Logger.Debug("turn ended", "session", s.ID(), "turn", turn, "reason", reason.Kind)
	return res, runErr
}

// turnRun is the state of one running turn.
type turnRun struct {
	s           *Session
	turn        int
	lastText    string
	childErrors []error
}

// steps runs steps until the model stops calling tools; it returns how the
// turn ends and an error when it could not run. A step left open on the way
// out is closed by EndTurn.
func (t *turnRun) steps(ctx context.Context) (session.EndReason, error) {
	s := t.s
	for {
		if s.j.Step() >= s.rt.cfg.MaxSteps {
			return session.EndReason{Kind: session.TurnError, Message: fmt.Sprintf("the model kept calling tools for %d steps (Config.MaxSteps)", s.rt.cfg.MaxSteps)}, nil
		}
		step := s.j.StartStep()
		msg, finish, err := t.call(ctx, step)
		if err != nil {
			return session.EndReason{Kind: session.TurnError, Message: err.Error()}, err
		}
		switch finish.Kind {
		case session.FinishAborted:
			return session.EndReason{Kind: session.TurnAborted, Message: "the model call was aborted"}, nil
		case session.FinishError:
			return session.EndReason{Kind: session.TurnError, Message: failureText(finish)}, nil
		}
		calls := msg.ToolCalls()
		if text := msg.Text(); text != "" || len(calls) == 0 {
			t.lastText = text
		}
		if len(calls) > 0 {
			if err := t.runTools(ctx, calls); err != nil {
				return session.EndReason{Kind: session.TurnError, Message: err.Error()}, err
			}
		}
		if err := s.j.EndStep(ctx); err != nil {
			err = fmt.Errorf("agent: %w", err)
			return session.EndReason{Kind: session.TurnError, Message: err.Error()}, err
		}
		if len(calls) == 0 {
			return session.EndReason{Kind: session.TurnCompleted}, nil
		}
		if ctx.Err() != nil {
			return session.EndReason{Kind: session.TurnAborted, Message: "cancelled between steps"}, nil
		}
	}
}

// call makes the step's model call, retrying retryable error finishes, and
// records every attempt. It returns the assistant message of the last
// attempt and its finish.
func (t *turnRun) call(ctx context.Context, step int) (session.Message, *session.FinishReason, error) {
	s := t.s
	cfg := &s.rt.cfg
	policy := cfg.Retry
	for {
		req := &llm.Request{Model: cfg.Model, System: cfg.System, Tools: cfg.Tools.Specs()}
		c, err := s.j.BeginCall(ctx, cfg.Provider, req)
		if err != nil {
			return session.Message{}, nil, fmt.Errorf("agent: %w", err)
		}
		stream, err := cfg.Driver.Stream(ctx, req)
		if err != nil {
			return session.Message{}, nil, fmt.Errorf("agent: session %s turn %d step %d: %w: %w", s.ID(), t.turn, step, ErrNotStarted, err)
		}
		for ch := range llm.Normalize(ctx, stream) {
			c.Chunk(ch)
		}
		msg, finish := c.End()
		attempt := req.Attempt
		if finish.Kind != session.FinishError || attempt >= policy.MaxAttempts || !retryable(policy, finish) {
			return msg, finish, nil
		}
		delay := policy.Backoff << (attempt - 1)
		cfg.Logger.Info("retrying model call", "session", s.ID(), "turn", t.turn, "step", step, "attempt", attempt+1, "code", finish.Failure.Code, "delay", delay)
		if err := s.j.Flush(ctx); err != nil {
			return session.Message{}, nil, fmt.Errorf("agent: %w", err)
		}
		if wait.Sleep(ctx, delay) != nil {
			return msg, &session.FinishReason{Kind: session.FinishAborted}, nil
		}
	}
}

func retryable(p RetryPolicy, f *session.FinishReason) bool {
	return f.Failure != nil && p.Retryable(f.Failure.Code)
}

func failureText(f *session.FinishReason) string {
	if f.Failure == nil {
		return "the model call failed"
	}
	if f.Failure.Code != "" {
		return f.Failure.Code + ": " + f.Failure.Message
	}
	return f.Failure.Message
}
