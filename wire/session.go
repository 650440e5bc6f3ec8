package wire

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// wireSession is one session as the handler follows it over the wire. Its
// fields are guarded by mu, except the identity, fixed at creation.
type wireSession struct {
	parent   *wireSession
	callID   string
	mode     session.Mode
	headerID string // Agentsnap-Session, when the agent sends headers
	name     string // for messages: root, root/call_1, ...

	mu       sync.Mutex
	j        *journal.Journal      // also set under Handler.mu: a child's first call reads its parent's
	seen     int                   // wire messages accounted for (system prompt aside)
	inTurn   bool                  // a turn is open
	inStep   bool                  // a step is open
	awaiting []session.Part        // tool calls whose results the next request brings
	failed   *session.FinishReason // the last call failed: a retry, or the end of the turn
	turns    int                   // turns this session started
}

// open brings the log up to date with what req sends before the call:
// the tool results of the last answer, a new turn for a new user message,
// or a retry of a failed call.
func (s *wireSession) open(ctx context.Context, h *Handler, req *Request) error {
	msgs := req.Messages
	if s.j == nil {
		if err := s.start(ctx, h, msgs); err != nil {
			return err
		}
	}
	if len(msgs) < s.seen {
		return fmt.Errorf("wire: session %s sends %d messages, fewer than the %d it has had: a session's conversation only grows", s.name, len(msgs), s.seen)
	}
	fresh := msgs[s.seen:]
	if len(s.awaiting) > 0 {
		n, err := s.results(ctx, fresh)
		if err != nil {
			return err
		}
		fresh = fresh[n:]
	}
	if s.failed != nil && len(fresh) > 0 {
		if err := s.endTurn(ctx, endReason(s.failed)); err != nil {
			return err
		}
	}
	switch {
	case len(fresh) == 0 && s.inTurn:
		if !s.inStep {
			s.j.StartStep()
			s.inStep = true
		}
		// else: a retry of the failed call, a new attempt of the same step
		s.failed = nil
	case len(fresh) == 1 && fresh[0].Role == session.RoleUser && !s.inTurn:
		trigger := journal.TriggerUser
		if s.parent != nil && s.turns == 0 {
			trigger = journal.TriggerSubagent // the prompt its parent's tool call gave it
		}
		s.turns++
		s.j.StartTurn(trigger, fresh[0])
		s.j.StartStep()
		s.inTurn, s.inStep, s.failed = true, true, nil
	case len(fresh) == 0:
		return fmt.Errorf("wire: session %s sends nothing new after its turn ended; a turn starts with a new user message", s.name)
	default:
		return fmt.Errorf("wire: session %s adds %s in one request; a turn starts with one user message, and a step goes on with the tool results of the last answer", s.name, roles(fresh))
	}
	s.seen = len(msgs)
	return nil
}

// start creates the journal of s at its first request, msgs, and checks
// that a child's first request sends what the child inherits — nothing
// for a spawn child, its fork seed for a fork child — then its prompt.
func (s *wireSession) start(ctx context.Context, h *Handler, msgs []session.Message) error {
	j, err := h.newJournal(ctx, s)
	if err != nil {
		return err
	}
	h.mu.Lock()
	s.j = j
	h.mu.Unlock()
	if s.parent == nil {
		return nil
	}
	inherited := j.Messages()
	if len(msgs) < len(inherited) {
		return fmt.Errorf("wire: %s child %s inherits %d messages of %s (its completed turns), but its first request sends %d messages in all; send the parent's conversation up to its last completed turn, then the child's prompt", s.mode, s.name, len(inherited), s.parent.name, len(msgs))
	}
	for i := range inherited {
		if d := differs(&inherited[i], &msgs[i]); d != "" {
			return fmt.Errorf("wire: %s child %s inherits %d messages of %s, but its first request differs at message %d: %s; a fork child sends its parent's conversation up to the parent's last completed turn, unchanged", s.mode, s.name, len(inherited), s.parent.name, i+1, d)
		}
	}
	if len(msgs) != len(inherited)+1 {
		return fmt.Errorf("wire: %s child %s inherits %d messages of %s (its completed turns), so its first request sends those and its prompt, %d messages; it sends %d — the %s after them are not part of what a %s child starts with (a fork inherits the turns its parent completed, not the running one)", s.mode, s.name, len(inherited), s.parent.name, len(inherited)+1, len(msgs), roles(msgs[len(inherited):]), s.mode)
	}
	s.seen = len(inherited)
	return nil
}

// results records the tool results that open fresh, for the calls of the
// last answer, and ends that step. It returns how many messages it took.
func (s *wireSession) results(ctx context.Context, fresh []session.Message) (int, error) {
	want := map[string]session.Part{}
	for _, c := range s.awaiting {
		want[c.ID] = c
	}
	n := 0
	for n < len(fresh) && fresh[n].Role == session.RoleTool && len(want) > 0 {
		for _, p := range fresh[n].Content {
			if p.Type != session.PartToolResult {
				continue
			}
			c, ok := want[p.ToolCallID]
			if !ok {
				return 0, fmt.Errorf("wire: session %s sends a tool result for call %q, which the last answer did not make (its calls: %s)", s.name, p.ToolCallID, callIDs(s.awaiting))
			}
			delete(want, p.ToolCallID)
			s.j.ToolResult(p.ToolCallID, c.Name, resultText(p), p.IsError)
		}
		n++
	}
	if len(want) > 0 {
		return 0, fmt.Errorf("wire: session %s goes on without the results of %d tool calls of the last answer (%s); send one tool message per call", s.name, len(want), callIDs(s.awaiting))
	}
	s.awaiting = nil
	s.inStep = false
	return n, s.j.EndStep(ctx)
}

// call makes the model call of the open step and answers it on w.
func (s *wireSession) call(ctx context.Context, h *Handler, w http.ResponseWriter, req *Request) error {
	lreq := requestFor(req)
	c, err := s.j.BeginCall(ctx, h.cfg.Provider, lreq)
	if err != nil {
		return err
	}
	stream, err := h.cfg.Driver.Stream(ctx, lreq)
	if err != nil {
		reason := session.ErrorFinish("NOT_STARTED", err.Error()).Reason
		s.failed = reason
		h.cfg.Format.WriteError(w, http.StatusInternalServerError, "AGENTSNAP", fmt.Sprintf("wire: session %s: the model call could not start: %v", s.name, err))
		return fmt.Errorf("wire: session %s turn %d step %d: the model call could not start: %w", s.name, lreq.Turn, lreq.Step, err)
	}
	recorded := tap(llm.Normalize(ctx, stream), c)
	if req.Stream {
		err = h.cfg.Format.WriteStream(w, req, recorded)
	}
	for range recorded { // drain what the writer did not read (a whole answer, a client gone)
	}
	msg, finish := c.End()
	if !req.Stream {
		err = h.cfg.Format.WriteMessage(w, req, msg, c.Usage(), finish)
	}
	if werr := s.answered(ctx, msg, finish); werr != nil {
		return werr
	}
	if err != nil {
		h.cfg.Logf("wire: session %s: writing the answer: %v", s.name, err)
	}
	return nil
}

// answered records what follows an answer: the tool calls the next request
// answers, or the end of the turn, or a failure to resolve later.
func (s *wireSession) answered(ctx context.Context, msg session.Message, finish *session.FinishReason) error {
	if finish.Kind == session.FinishError || finish.Kind == session.FinishAborted {
		s.failed = finish
		return nil
	}
	s.seen++ // the agent sends the answer back in its next request
	if calls := msg.ToolCalls(); len(calls) > 0 {
		s.awaiting = calls
		return s.j.ToolCalls(ctx, calls)
	}
	s.inStep = false
	if err := s.j.EndStep(ctx); err != nil {
		return err
	}
	return s.endTurn(ctx, session.EndReason{Kind: session.TurnCompleted})
}

func (s *wireSession) endTurn(ctx context.Context, reason session.EndReason) error {
	s.inTurn, s.inStep, s.failed, s.awaiting = false, false, nil, nil
	return s.j.EndTurn(ctx, reason)
}

// close ends what the agent left open when it stopped.
func (s *wireSession) close(ctx context.Context) error {
	if s.j == nil || !s.inTurn {
		return nil
	}
	switch {
	case s.failed != nil:
		return s.endTurn(ctx, endReason(s.failed))
	case len(s.awaiting) > 0:
		return s.endTurn(ctx, session.EndReason{Kind: session.TurnError, Message: "the agent stopped before it sent the results of its tool calls (" + callIDs(s.awaiting) + ")"})
	}
	return s.endTurn(ctx, session.EndReason{Kind: session.TurnAborted, Message: "the agent stopped in the middle of the turn"})
}

// tap records every chunk of a stream in c as it passes.
func tap(stream iter.Seq[llm.Chunk], c *journal.Call) iter.Seq[llm.Chunk] {
	done := false
	return func(yield func(llm.Chunk) bool) {
		if done {
			return
		}
		done = true
		// Once the consumer stops (the writer at the finish, a client gone),
		// this same pass goes on recording the rest: the log closes every
		// call. Ranging over stream again would start it over, and a live
		// stream can be iterated only once.
		open := true
		for ch := range stream {
			c.Chunk(ch)
			open = open && yield(ch)
		}
	}
}

// differs says how two messages differ in what a model sees, or "".
// Reasoning is not compared: SDKs do not send it back.
func differs(want, got *session.Message) string {
	if want.Role != got.Role {
		return fmt.Sprintf("role %s, want %s", got.Role, want.Role)
	}
	if want.Text() != got.Text() {
		return fmt.Sprintf("%s text %q, want %q", got.Role, abbrev(got.Text()), abbrev(want.Text()))
	}
	wc, gc := want.ToolCalls(), got.ToolCalls()
	if len(wc) != len(gc) {
		return fmt.Sprintf("%d tool calls, want %d", len(gc), len(wc))
	}
	for i := range wc {
		if wc[i].ID != gc[i].ID || wc[i].Name != gc[i].Name || wc[i].Arguments != gc[i].Arguments {
			return fmt.Sprintf("tool call %d is %s %s %s, want %s %s %s", i+1, gc[i].ID, gc[i].Name, gc[i].Arguments, wc[i].ID, wc[i].Name, wc[i].Arguments)
		}
	}
	wr, gr := toolResults(want), toolResults(got)
	if wr != gr {
		return fmt.Sprintf("tool result %q, want %q", abbrev(gr), abbrev(wr))
	}
	return ""
}

// toolResults is the tool results of m in one string, to compare.
func toolResults(m *session.Message) string {
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == session.PartToolResult {
			b.WriteString(p.ToolCallID + ":" + resultText(p) + ";")
		}
	}
	return b.String()
}

// resultText is the text a tool-result part carries.
func resultText(p session.Part) string {
	m := session.Message{Content: p.Content}
	return m.Text()
}

func callIDs(calls []session.Part) string {
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

func roles(msgs []session.Message) string {
	r := make([]string, len(msgs))
	for i, m := range msgs {
		r[i] = m.Role
	}
	return fmt.Sprintf("%d messages (%s)", len(msgs), strings.Join(r, ", "))
}

func abbrev(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
