package wire

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// wireSession is one session as the handler follows it over the wire. Its
// identity is fixed at creation; the rest is guarded by mu, except the
// fields the doc comments give to Handler.mu.
type wireSession struct {
	parent   *wireSession
	callID   string // the id of the call that created it
	namedAs  string // what the agent named that call by: its id, or its function's name
	mode     session.Mode
	headerID string // Agentsnap-Session, when the agent sends headers
	name     string // for messages: root, root/call_1, ...

	mu       sync.Mutex
	j        *journal.Journal              // also set under Handler.mu: a child's first call reads its parent's
	inTurn   bool                          // a turn is open
	inStep   bool                          // a step is open
	awaiting []session.Part                // tool calls of the last answer, whose results the next request brings
	ran      map[string]bool               // those of them run as recorded tools (Handler.Tool, ToolCall), by id
	running  map[string]int                // those of them in Handler.Tool now, by id: the session's requests wait for none (stillRunning)
	unsent   map[string]bool               // those ToolCall named to run whose output no Tool recorded yet (outputsUnsent)
	recorded map[string]bool               // those whose output Tool recorded: each runs once
	outputs  map[string]session.ToolOutput // those whose output ToolOutput sent, by id: a retry sends the same
	given    map[string]session.ToolOutput // those the recording answered (a replay), by id: asked again, answered the same
	sent     int                           // messages the last request sent: the log's conversation before its answer
	failed   *session.FinishReason         // the last call failed: a retry, or the end of the turn
	turns    int                           // turns this session started

	// Under Handler.mu: what other sessions' requests are checked against.
	made       []madeCall        // every tool call the session's answers made, as they streamed
	last       []session.Message // the messages of its last request (lineage inference)
	lastSystem string            // the system prompt of its last request (lineage inference)
	// What its last request left to read the next against (incremental.go),
	// while the log's conversation holds last.
	decoded any
}

// madeCall is a tool call an answer made: a child names it as the call
// that created it.
type madeCall struct {
	id, name, args string
	answered       bool // its result came back (lineage inference skips it)
	children       int  // sessions it created
}

// open brings the log up to date with the request before its model call,
// recording the request as sent: the tool results of the last answer end
// its step; a request after a finished turn starts a turn with the user
// messages it ends with; a request that repeats a failed call is another
// attempt; and a request whose conversation is not the log's — rewritten,
// reordered, split, merged, truncated or compacted — is recorded as a
// history/replace, never refused.
func (s *wireSession) open(ctx context.Context, h *Handler, req *Request) error {
	if s.j == nil {
		if err := s.start(ctx, h); err != nil {
			return err
		}
	}
	if err := s.stillRunning("a request came", "an agent sends the request with a tool's result once the tool has returned: wait for every tool of the answer"); err != nil {
		return err
	}
	if err := s.outputsUnsent(); err != nil {
		return err
	}
	msgs := req.Messages
	// The first known messages are the log's: compared when they came.
	known := h.known(s, req)
	req.known = known
	if len(s.awaiting) > 0 {
		if err := s.results(ctx, h, msgs, known); err != nil {
			return err
		}
	}
	conv := s.j.Messages()
	p := commonPrefixFrom(conv, msgs, known)
	if s.failed != nil {
		if s.inTurn && p == len(conv) && p == len(msgs) {
			s.failed = nil
			return nil // a retry: another attempt of the same step
		}
		if err := s.endTurn(ctx, endReason(s.failed)); err != nil {
			return err
		}
	}
	if !s.inTurn {
		if err := s.startTurn(msgs, known); err != nil {
			return err
		}
	} else if p != len(conv) || p != len(msgs) {
		if err := s.j.ReplaceHistory(p, msgs[p:]); err != nil {
			return err
		}
	}
	s.j.StartStep()
	s.inStep = true
	h.keep(s, req)
	return nil
}

// startTurn starts the turn a request after a finished turn opens: with
// the user messages it ends with (those it adds to the log's conversation,
// when it goes on from it), after a history/replace when what comes before
// them is not the log's conversation. The log's conversation holds the
// first known messages.
func (s *wireSession) startTurn(msgs []session.Message, known int) error {
	trigger := journal.TriggerUser
	if s.parent != nil && s.turns == 0 {
		trigger = journal.TriggerSubagent // the prompt its parent's tool call gave it
	}
	conv := s.j.Messages()
	users := trailingUsers(msgs)
	if p := commonPrefixFrom(conv, msgs, known); len(users) > 0 && len(msgs)-len(users) < p {
		// User messages the log's conversation already holds are history it
		// goes on from; what comes after them starts the turn (at least the
		// last: an agent without memory asks again).
		users = msgs[min(p, len(msgs)-1):]
	}
	before := msgs[:len(msgs)-len(users)]
	if p := commonPrefixFrom(conv, before, min(known, len(before))); p != len(conv) || p != len(before) {
		if err := s.j.ReplaceHistory(p, before[p:]); err != nil {
			return err
		}
	}
	s.turns++
	s.j.StartTurn(trigger, users...)
	s.inTurn = true
	return nil
}

// start creates the journal of s at its first request: a root, or the
// child its parent's tool call creates — a fork child with its parent's
// completed turns as its seed, stamped when it is created, whatever the
// child's first request looks like (that request is then recorded as sent).
func (s *wireSession) start(ctx context.Context, h *Handler) error {
	j, err := h.newJournal(ctx, s)
	if err != nil {
		return err
	}
	h.mu.Lock()
	s.j = j
	h.mu.Unlock()
	return nil
}

// results records the tool results the request brings for the calls of the
// last answer, in the order of the calls, and ends that step. Results are
// taken from what the request sends after the part of the last request it
// repeats, so a call id the session reuses in later steps is matched to
// this step's result. A call whose result the request does not carry gets
// an error result saying so (the request's own history then shows as
// sent); a request that carries none of them is most likely a subagent's
// call that did not say so, and is refused with what to send. The log's
// conversation holds the first known messages.
func (s *wireSession) results(ctx context.Context, h *Handler, msgs []session.Message, known int) error {
	base := s.j.Messages()[:s.sent]
	var parts []session.Part
	for _, m := range msgs[commonPrefixFrom(base, msgs, min(known, len(base))):] {
		for _, p := range m.Content {
			if p.Type == session.PartToolResult {
				parts = append(parts, p)
			}
		}
	}
	found, n := pairResults(s.awaiting, parts)
	if n == 0 && !goesOn(h, s, msgs, known) {
		// Besides a child that did not say so, the request may be another
		// agent's that shares the session with no tool call to be named by.
		// A recording refuses it alike: re-recording does not mend it.
		err := h.lineageError(fmt.Errorf("wire: a request for session %s, which waits for the results of its tool calls (%s), carries none of them", s.name, callIDs(s.awaiting)))
		return unserved{fmt.Errorf("%w; if it is another agent's that calls in this session beside the one that made them, with no tool call to name it by (an input guardrail that runs an agent, which the Agents SDK runs in parallel by default), run it before the agent it guards (runInParallel: false)", err)}
	}
	for i, c := range s.awaiting {
		switch k := found[i]; {
		case k >= 0 && (len(attachments(&parts[k])) > 0 || parts[k].Meta != nil):
			// An image the tool returned is in the log's conversation as
			// the agent sent it, so the next request is not a rewrite;
			// what the API sent beside the content (a Gemini result's
			// willContinue, scheduling) is recorded with it.
			s.j.ToolResultMeta(c.ID, c.Name, slices.Clone(parts[k].Content), parts[k].IsError, parts[k].Meta)
		case k >= 0:
			s.j.ToolResult(c.ID, c.Name, resultText(parts[k]), parts[k].IsError)
		default:
			s.j.ToolResult(c.ID, c.Name, "agentsnap: the agent's next request sent no result for this call", true)
		}
	}
	h.answered(s, s.awaiting)
	s.awaiting = nil
	s.inStep = false
	return s.j.EndStep(ctx)
}

// pairResults returns, for each call, the index in parts of its result, or
// -1, and how many were found: a result that names the call's id, else one
// that names no id and the call's tool, in order — Gemini's ids are
// optional, and clients generated from its protos (generative-ai-go, and
// langchaingo's googleai on it) send results without them.
func pairResults(calls, parts []session.Part) ([]int, int) {
	found := make([]int, len(calls))
	for i := range found {
		found[i] = -1
	}
	used := make([]bool, len(parts))
	n := 0
	pair := func(match func(c, r *session.Part) bool) {
		for i := range calls {
			for k := range parts {
				if found[i] < 0 && !used[k] && match(&calls[i], &parts[k]) {
					used[k], found[i] = true, k
					n++
				}
			}
		}
	}
	pair(func(c, r *session.Part) bool { return r.ToolCallID == c.ID })
	pair(func(c, r *session.Part) bool { return r.ToolCallID == "" && r.Name == c.Name })
	return found, n
}

// goesOn reports whether msgs repeat all of s's last request: the session
// going on without the results of its calls — a handoff to another agent,
// which sends the conversation on under its own prompt, or a framework that
// turns the call into context messages. A request that does not is more
// likely a subagent's that did not say so. The first known messages are
// last's.
func goesOn(h *Handler, s *wireSession, msgs []session.Message, known int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(s.last) > 0 && commonPrefixFrom(s.last, msgs, min(known, len(s.last))) == len(s.last)
}

// call makes the model call of the open step and answers it on w with f.
func (s *wireSession) call(ctx context.Context, h *Handler, f Format, w http.ResponseWriter, req *Request) error {
	// The model gets the messages as the agent sent them — the log's
	// conversation but for what the agent does not send back (reasoning) —
	// and request/header digests those.
	lreq := &req.call
	*lreq = llm.Request{Model: req.Model, System: req.System, Messages: req.Messages, Tools: req.Tools, API: f.API(), Settings: req.Settings, Forward: req.Forward}
	s.sent = len(s.j.Messages())
	// The first known messages are those the last call gave the journal.
	c, err := s.j.BeginCallRepeating(ctx, h.cfg.Provider, lreq, req.known)
	if err != nil {
		return err
	}
	req.Key = callKey(lreq)
	stream, err := h.cfg.Driver.Stream(ctx, lreq)
	if err != nil {
		s.failed = session.ErrorFinish("NOT_STARTED", err.Error()).Reason
		// A 4xx: SDKs retry a 5xx, and a call the replay cannot serve
		// would only fail again.
		refuse(w, f, http.StatusBadRequest, "AGENTSNAP", fmt.Sprintf("wire: session %s: the model call could not start: %v", s.name, err))
		return fmt.Errorf("wire: session %s turn %d step %d: the model call could not start: %w", s.name, lreq.Turn, lreq.Step, err)
	}
	t := req.tap(ctx, h, s, stream, c)
	if req.Stream {
		err = f.WriteStream(w, req, t.seq)
	}
	t.drain() // what the writer did not read (a whole answer, a client gone)
	msg, finish := c.End()
	if !req.Stream {
		if finish.Kind == session.FinishError || finish.Kind == session.FinishAborted {
			// A stream's failure is an event after its 200, which no SDK
			// retries; a whole answer's is its status.
			retryAtOnce(w)
		}
		err = f.WriteMessage(w, req, msg, c.Usage(), finish)
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
	if calls := msg.ToolCalls(); len(calls) > 0 {
		s.awaiting, s.ran, s.unsent, s.recorded, s.outputs, s.given = calls, nil, nil, nil, nil, nil
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

// close ends what the agent left open when it stopped. A turn that waits
// for tool results is also a problem: the agent stopped in the middle of
// its work, and a recording of that would not be what it does; advice
// says so as the agent runs (Handler.stopAdvice).
func (s *wireSession) close(ctx context.Context, advice string) error {
	if s.j == nil {
		return nil
	}
	if err := s.stillRunning("the handler closed", "the log keeps what was stored before; let the agent return once its tools have"); err != nil {
		return err // not waited for (it may never return), nor raced
	}
	if !s.inTurn {
		return s.j.Flush(ctx) // MCP requests made after the last turn
	}
	switch {
	case s.failed != nil:
		return s.endTurn(ctx, endReason(s.failed))
	case len(s.awaiting) > 0:
		ids := callIDs(s.awaiting)
		unsent := ""
		if calls := s.unsentCalls(); calls != "" {
			unsent = "; no output came for " + calls + ", which it was told to run (a crash in the tool?)"
		}
		if err := s.endTurn(ctx, session.EndReason{Kind: session.TurnError, Message: "the agent stopped before it sent the results of its tool calls (" + ids + ")"}); err != nil {
			return err
		}
		return fmt.Errorf("wire: session %s stopped in turn %d before it sent the results of its tool calls (%s)%s: %s", s.name, s.j.Turn(), ids, unsent, advice)
	}
	return s.endTurn(ctx, session.EndReason{Kind: session.TurnAborted, Message: "the agent stopped in the middle of the turn"})
}

// callKey is the call's key, "session:turn:step:attempt": fmt.Sprintf's
// bytes in one allocation (Sprintf boxes each number).
func callKey(r *llm.Request) string {
	var buf [96]byte
	b := append(buf[:0], r.Session.ID...)
	for _, n := range [...]int{r.Turn, r.Step, r.Attempt} {
		b = strconv.AppendInt(append(b, ':'), int64(n), 10)
	}
	return string(b)
}

// tap readies the tap of req's call c: it records every chunk of the
// call's stream in c as it passes, and the tool calls it makes in s.made
// before the agent reads them (a child may name its creating call as soon
// as it has read it). It normalizes the stream as llm.Normalize does,
// without the closures a range over it allocates: its funcs are bound to
// this call's tap, so a driver that calls yield after its stream returned
// (which a range would panic on) reaches a tap that has ended.
func (req *Request) tap(ctx context.Context, h *Handler, s *wireSession, stream iter.Seq[llm.Chunk], c *journal.Call) *tapped {
	t := &req.tapped
	*t = tapped{ctx: ctx, h: h, s: s, c: c, stream: stream}
	t.at = t.first[:0]
	t.seq, t.each = t.all, t.chunk
	return t
}

// tapped is a call's stream being tapped.
type tapped struct {
	ctx    context.Context
	h      *Handler
	s      *wireSession
	c      *journal.Call
	stream iter.Seq[llm.Chunk]
	yield  func(llm.Chunk) bool // the consumer's, nil once it stopped
	done   bool                 // the stream was read
	ended  bool                 // by its first finish
	at     []blockCall          // where the answer's tool calls are in s.made
	first  [4]blockCall

	seq  iter.Seq[llm.Chunk]  // all, bound
	each func(llm.Chunk) bool // chunk, bound
}

// all streams the answer to yield, once. Once the consumer stops (the
// writer at the finish, a client gone), this same pass goes on recording
// the rest: the log closes every call. Reading the stream again would
// start it over, and a live stream can be read only once.
func (t *tapped) all(yield func(llm.Chunk) bool) {
	if t.done {
		return
	}
	t.done, t.yield = true, yield
	// Ended even when the stream panics (a server recovers a handler's
	// panic): a yield the driver kept then reaches nothing.
	defer func() { t.ended, t.yield, t.ctx, t.stream, t.c = true, nil, nil, nil, nil }()
	t.stream(t.each)
	if !t.ended {
		t.chunk(llm.MissingFinish(t.ctx))
	}
}

// drain reads what the consumer did not: the whole stream when it read
// none of it.
func (t *tapped) drain() { t.all(nil) }

// chunk records ch and passes it on; false past the first finish, which
// ends the stream as llm.Normalize ends it.
func (t *tapped) chunk(ch llm.Chunk) bool {
	if t.ended {
		return false
	}
	t.c.Chunk(ch)
	t.at = t.h.noteCall(t.s, t.at, &ch)
	if t.yield != nil && !t.yield(ch) {
		t.yield = nil
	}
	t.ended = ch.IsFinish()
	return !t.ended
}

// blockCall is where in s.made the tool call of a block of the answer is.
type blockCall struct{ block, made int }

// noteCall keeps the tool call a chunk makes or continues in s.made; at
// says where the answer's calls are, and is returned with the new one.
func (h *Handler) noteCall(s *wireSession, at []blockCall, ch *llm.Chunk) []blockCall {
	var id, name, args string
	whole := false
	switch {
	case ch.Type == session.ChunkToolCallDelta:
		id, name, args = ch.ID, ch.Name, ch.ArgumentsDelta
	case ch.Type == session.ChunkBlockEnd && ch.Block != nil && ch.Block.Type == session.BlockToolCall:
		id, name, args, whole = ch.Block.ID, ch.Block.Name, ch.Block.Arguments, true
	default:
		return at
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := -1
	for _, b := range at {
		if b.block == ch.Index {
			k = b.made
		}
	}
	if k < 0 {
		s.made = append(s.made, madeCall{})
		k = len(s.made) - 1
		at = append(at, blockCall{ch.Index, k})
	}
	m := &s.made[k]
	if whole {
		m.id, m.name, m.args = id, name, args
		return at
	}
	if m.id == "" {
		m.id = id
	}
	if m.name == "" {
		m.name = name
	}
	m.args += args
	return at
}

// answered marks calls whose results came back.
func (h *Handler) answered(s *wireSession, calls []session.Part) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range calls {
		for i := len(s.made) - 1; i >= 0; i-- {
			if m := &s.made[i]; m.id == c.ID && !m.answered {
				m.answered = true
				break
			}
		}
	}
}
