package ownloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// maxSteps bounds a turn: a model that keeps calling tools ends it as error.
const maxSteps = 12

// agent is one run: the environment, the settings, and the model calls
// that could not start anywhere in the tree.
type agent struct {
	env *agentsnap.Env
	set *Settings

	mu     sync.Mutex
	failed []error
}

func (a *agent) noteNotStarted(err error) {
	a.mu.Lock()
	a.failed = append(a.failed, err)
	a.mu.Unlock()
}

// notStarted returns the model calls that could not start so far, joined.
func (a *agent) notStarted() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return errors.Join(a.failed...)
}

// sess is one session of the tree: the root or a helper. Its log is
// written through its journal, from its own goroutine only.
type sess struct {
	a *agent
	j *journal.Journal
}

// outcome is how a turn ended and its last text.
type outcome struct {
	reason session.EndReason
	text   string
}

// turn runs one turn and records how it ended. The error is non-nil when
// the turn could not run: a model call that could not start, a store that
// failed.
func (s *sess) turn(ctx context.Context, trigger, prompt string) (outcome, error) {
	s.j.StartTurn(trigger, journal.UserText(prompt))
	out, runErr := s.steps(ctx)
	if err := s.j.EndTurn(ctx, out.reason); err != nil {
		return out, errors.Join(runErr, fmt.Errorf("ownloop: %w", err))
	}
	return out, runErr
}

func ended(kind, msg string) outcome {
	return outcome{reason: session.EndReason{Kind: kind, Message: msg}}
}

// steps runs model calls and their tools until the model calls no tool.
func (s *sess) steps(ctx context.Context) (outcome, error) {
	var last string
	for range maxSteps {
		s.j.StartStep()
		msg, finish, err := s.call(ctx)
		switch {
		case err != nil:
			return ended(session.TurnError, err.Error()), err
		case finish == nil: // the user cancelled while the model streamed
			return ended(session.TurnAborted, "cancelled while the model was answering"), nil
		case finish.Kind == session.FinishError:
			return ended(session.TurnError, failureText(finish)), nil
		case finish.Kind == session.FinishAborted:
			return ended(session.TurnAborted, "the model call was aborted"), nil
		}
		if t := msg.Text(); t != "" {
			last = t
		}
		calls := msg.ToolCalls()
		if len(calls) > 0 {
			if err := s.runTools(ctx, calls); err != nil {
				return ended(session.TurnError, err.Error()), err
			}
		}
		if err := s.j.EndStep(ctx); err != nil {
			return ended(session.TurnError, err.Error()), fmt.Errorf("ownloop: %w", err)
		}
		if len(calls) == 0 {
			return outcome{reason: session.EndReason{Kind: session.TurnCompleted}, text: last}, nil
		}
		if ctx.Err() != nil {
			return ended(session.TurnAborted, "cancelled between steps"), nil
		}
	}
	return ended(session.TurnError, fmt.Sprintf("the model kept calling tools for %d steps", maxSteps)), nil
}

// call makes the step's model call and records its stream. A nil finish
// means the context was cancelled while the model streamed: the call is
// abandoned without a finish, as dsh records a user's cancel.
func (s *sess) call(ctx context.Context) (session.Message, *session.FinishReason, error) {
	env := s.a.env
	tools := s.a.set.toolSpecs(s.j.Header().DelegationDepth)
	req := &llm.Request{Model: env.Model, System: s.a.set.systemPrompt(tools), Tools: tools}
	// BeginCall fills the request's session lineage, turn, step and
	// conversation: the replay routes the call by that lineage.
	c, err := s.j.BeginCall(ctx, env.Provider, req)
	if err != nil {
		return session.Message{}, nil, fmt.Errorf("ownloop: %w", err)
	}
	stream, err := env.Driver.Stream(ctx, req)
	if err != nil && ctx.Err() != nil {
		// Cancelled before the model answered: nothing to cut short, so
		// the call records its aborted finish (a replay serves that).
		c.Chunk(session.Finish(session.FinishAborted))
		c.End()
		return session.Message{}, nil, nil
	}
	if err != nil {
		err = fmt.Errorf("ownloop: session %s turn %d step %d: model call could not start: %w", s.j.ID(), req.Turn, req.Step, err)
		s.a.noteNotStarted(err)
		return session.Message{}, nil, err
	}
	finished, chunks := false, 0
	for ch := range stream {
		if ch.IsFinish() && ctx.Err() != nil {
			break // the driver's answer to the cancel, not the model's
		}
		c.Chunk(ch)
		chunks++
		if ch.IsFinish() {
			finished = true
			break
		}
	}
	if !finished && ctx.Err() != nil {
		// The user's cancel cut the answer short: like dsh, keep what came
		// and no finish; the turn ends aborted, and a replay serves the
		// call as a hang. A call cut before its first chunk records its
		// aborted finish instead, which a replay can serve.
		if chunks == 0 {
			c.Chunk(session.Finish(session.FinishAborted))
			c.End()
		} else {
			c.Abandon()
		}
		return session.Message{}, nil, nil
	}
	msg, finish := c.End()
	return msg, finish, nil
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

// runTools records the step's tool calls, runs them — delegations
// concurrently, one goroutine each — and records the results in call
// order, whatever order they finished in.
func (s *sess) runTools(ctx context.Context, calls []session.Part) error {
	// Stored before any helper starts: a fork child's seed is read from
	// the completed turns, and a store sees the calls that created it.
	if err := s.j.ToolCalls(ctx, calls); err != nil {
		return fmt.Errorf("ownloop: %w", err)
	}
	results := make([]result, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		args := json.RawMessage(c.Arguments)
		if strings.TrimSpace(c.Arguments) == "" {
			args = json.RawMessage(`{}`)
		}
		if mode, ok := delegationMode(c.Name); ok && s.offered(c.Name) {
			wg.Go(func() { results[i] = s.delegate(ctx, mode, c.ID, args) })
			continue
		}
		results[i] = s.runTool(c.Name, args)
	}
	wg.Wait()
	for i, c := range calls {
		s.j.ToolResult(c.ID, c.Name, results[i].text, results[i].isError)
	}
	return nil
}

// offered reports whether the session's model was offered the tool.
func (s *sess) offered(name string) bool {
	for _, t := range s.a.set.toolSpecs(s.j.Header().DelegationDepth) {
		if t.Name == name {
			return true
		}
	}
	return false
}

// runTool runs a plain tool.
func (s *sess) runTool(name string, args json.RawMessage) result {
	if !s.offered(name) {
		if _, deleg := delegationMode(name); deleg && s.a.set.has(name) {
			return errorf("%s: helpers at depth %d may not delegate further (agent.maxDepth %d); do the task yourself", name, s.j.Header().DelegationDepth, s.a.set.MaxDepth)
		}
		var names []string
		for _, t := range s.a.set.toolSpecs(s.j.Header().DelegationDepth) {
			names = append(names, t.Name)
		}
		return errorf("unknown tool %q; your tools: %s", name, strings.Join(names, ", "))
	}
	switch name {
	case ToolConvert:
		return convert(args)
	case ToolWordcount:
		return wordcount(args)
	}
	return errorf("tool %q has no implementation", name)
}

// delegate runs a helper session for the tool call callID: one turn with
// the task as its user message. Its final text is the tool's result.
func (s *sess) delegate(ctx context.Context, mode session.Mode, callID string, args json.RawMessage) result {
	task, err := delegateTask(args)
	if err != nil {
		return errorf("%v", err)
	}
	cj, err := s.j.Child(ctx, callID, mode)
	if err != nil {
		return errorf("could not start the helper: %v", err)
	}
	child := &sess{a: s.a, j: cj}
	out, err := child.turn(ctx, journal.TriggerSubagent, task)
	if err != nil {
		return errorf("helper %s failed: %v", cj.ID(), err)
	}
	if out.reason.Kind != session.TurnCompleted {
		return errorf("helper %s ended %s: %s", cj.ID(), out.reason.Kind, out.reason.Message)
	}
	return result{text: out.text}
}
