package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentsnap/agentsnap/internal/wait"
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

	s.turn++
	res.Turn = s.turn
	t := &turnRun{s: s, turn: s.turn}
	s.emit(session.TypeTurnStart, session.TurnStartData{Turn: s.turn, Trigger: trigger})
	if on := s.rt.cfg.OnTurn; on != nil {
		on(TurnEvent{Session: s.ref(), Turn: s.turn})
	}
	user := session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(prompt)}}
	s.emit(session.TypeUserMessage, user)
	s.addMessages(user)

	reason, runErr := t.steps(ctx)
	s.emit(session.TypeTurnEnd, session.TurnEndData{Turn: s.turn, Reason: reason})
	if err := s.flush(ctx); err != nil {
		return res, errors.Join(runErr, err)
	}
	res.Reason, res.Text, res.Errors = reason, t.lastText, t.childErrors
	if on := s.rt.cfg.OnTurn; on != nil {
		on(TurnEvent{Session: s.ref(), Turn: s.turn, Ended: true, Reason: reason})
	}
	s.rt.cfg.Logger.Debug("turn ended", "session", s.header.ID, "turn", s.turn, "reason", reason.Kind)
	return res, runErr
}

// turnRun is the state of one running turn.
type turnRun struct {
	s           *Session
	turn        int
	prefixOnce  sync.Once
	forkPrefix  []session.Event // what a fork child of this turn inherits; see prefix
	lastText    string
	childErrors []error
}

// steps runs steps until the model stops calling tools; it returns how the
// turn ends and an error when it could not run.
func (t *turnRun) steps(ctx context.Context) (session.EndReason, error) {
	s := t.s
	for step := 1; ; step++ {
		if step > s.rt.cfg.MaxSteps {
			return session.EndReason{Kind: session.TurnError, Message: fmt.Sprintf("the model kept calling tools for %d steps (Config.MaxSteps)", s.rt.cfg.MaxSteps)}, nil
		}
		s.emit(session.TypeStepStart, session.StepData{Turn: t.turn, Step: step})
		msg, finish, err := t.call(ctx, step)
		if err != nil {
			s.emit(session.TypeStepEnd, session.StepData{Turn: t.turn, Step: step})
			return session.EndReason{Kind: session.TurnError, Message: err.Error()}, err
		}
		switch finish.Kind {
		case session.FinishAborted:
			s.emit(session.TypeStepEnd, session.StepData{Turn: t.turn, Step: step})
			return session.EndReason{Kind: session.TurnAborted, Message: "the model call was aborted"}, nil
		case session.FinishError:
			s.emit(session.TypeStepEnd, session.StepData{Turn: t.turn, Step: step})
			return session.EndReason{Kind: session.TurnError, Message: failureText(finish)}, nil
		}
		s.addMessages(msg)
		if text := msg.Text(); text != "" || len(msg.ToolCalls()) == 0 {
			t.lastText = text
		}
		calls := msg.ToolCalls()
		if len(calls) > 0 {
			if err := t.runTools(ctx, step, calls); err != nil {
				s.emit(session.TypeStepEnd, session.StepData{Turn: t.turn, Step: step})
				return session.EndReason{Kind: session.TurnError, Message: err.Error()}, err
			}
		}
		s.emit(session.TypeStepEnd, session.StepData{Turn: t.turn, Step: step})
		if err := s.flush(ctx); err != nil {
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
	policy := s.rt.cfg.Retry
	for attempt := 1; ; attempt++ {
		req := &llm.Request{
			Session:  s.ref(),
			Turn:     t.turn,
			Step:     step,
			Attempt:  attempt,
			Model:    s.rt.cfg.Model,
			System:   s.rt.cfg.System,
			Messages: s.messages,
			Tools:    s.rt.cfg.Tools.Specs(),
		}
		s.emit(session.TypeRequestHeader, requestHeader(s.rt.cfg.Provider, req, s.digests))
		if err := s.flush(ctx); err != nil {
			return session.Message{}, nil, err
		}
		stream, err := s.rt.cfg.Driver.Stream(ctx, req)
		if err != nil {
			return session.Message{}, nil, fmt.Errorf("agent: session %s turn %d step %d: %w: %w", s.header.ID, t.turn, step, ErrNotStarted, err)
		}
		var asm llm.Assembler
		for c := range llm.Normalize(ctx, stream) {
			asm.Add(c)
			s.emit(session.TypeAssistantChunk, &session.ChunkData{Turn: t.turn, Step: step, Attempt: attempt, Chunk: c})
		}
		finish := asm.Finish()
		msg := asm.Message()
		if finish.Kind != session.FinishError || attempt >= policy.MaxAttempts || !retryable(policy, finish) {
			if finish.Kind != session.FinishError && finish.Kind != session.FinishAborted {
				s.emit(session.TypeAssistantMessage, session.AssistantMessageData{Turn: t.turn, Step: step, Message: msg, Usage: asm.Usage()})
			}
			return msg, finish, nil
		}
		delay := policy.Backoff << (attempt - 1)
		s.rt.cfg.Logger.Info("retrying model call", "session", s.header.ID, "turn", t.turn, "step", step, "attempt", attempt+1, "code", finish.Failure.Code, "delay", delay)
		if err := s.flush(ctx); err != nil {
			return session.Message{}, nil, err
		}
		if wait.Sleep(ctx, delay) != nil {
			return msg, &session.FinishReason{Kind: session.FinishAborted}, nil
		}
	}
}

// prefix returns the balanced completed-turn prefix a fork child of this
// turn inherits. It is computed at the first fork only: a turn that never
// forks does not copy its session's log. The current turn has not ended, so
// the last turn/end — and the prefix — is the same at any point of the turn.
func (t *turnRun) prefix() []session.Event {
	t.prefixOnce.Do(func() {
		t.s.mu.Lock()
		defer t.s.mu.Unlock()
		t.forkPrefix = cloneEvents(t.s.events[:session.CompletedPrefix(t.s.events)])
	})
	return t.forkPrefix
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

func cloneEvents(evs []session.Event) []session.Event {
	return append([]session.Event(nil), evs...)
}
