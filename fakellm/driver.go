package fakellm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap/internal/wait"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Driver replays a recorded session tree; it implements [llm.Driver].
//
// A Driver is safe for concurrent use: subagents call Stream from their own
// goroutines. It serves one replay; build a new one for the next. Run
// [Driver.Check] when the replay is over.
type Driver struct {
	opts   options
	root   *replay
	order  []*replay     // lineage order: root, then children depth first in call order
	advice func() string // what errors end with: the command that re-records the scenario (WithAdvice)

	mu       sync.Mutex
	byLive   map[string]*replay
	failures []failure
	// toolFailures are recorded tools' calls and MCP requests the replay
	// could not serve (see tools.go).
	toolFailures []failure
	notes        []string

	// The virtual clock (nil without WithVirtualTime) and what it knows
	// of the replay's progress; see progress.go.
	clock    *clock
	rootTurn int             // the turn of the root's last claimed call
	watched  bool            // the runtime writes through Watch's store
	ended    map[string]bool // per live session: its last stored event is a turn/end

	neverWaits bool // NeverWaits
}

// replay is one recorded session and its replay state.
type replay struct {
	script   *Script
	parent   *replay
	children []*replay // in the order of the parent's tool calls
	lineage  string    // "root", "root/call_1", "root/call_1/call_4"
	index    int       // position in lineage order

	live   string // the live session bound to it; "" until its first call
	cursor int    // entries replayed so far
	// The system prompt and the first message of the live session's last
	// call (the root's only): a call that does not go on from them is
	// likely a subagent's that named no session (strayNote).
	lastSystem string
	lastFirst  session.Message // the message itself; its Content still shares the caller's parts
	asked      bool
	sentFirst  bool // it sent a message

	// created is the parent's recorded tool call that created this child
	// (nil when unknown), so children of a call id the parent reused in
	// several steps are told apart.
	created *toolCall

	// For the virtual clock: the parent's entry whose step created this
	// child (-1 when unknown), the root turn of a child's calls, the
	// recorded log when it is in memory and how each of its turns ended
	// (read from it when first asked), the calls in flight, and whether a
	// call of the session could not be served.
	createdBy int
	rootTurn  int
	log       *session.Log
	turnEnds  map[int]string
	flights   []*flight
	diverged  bool

	rec      *recordedTools                           // recorded tools served so far; see tools.go
	requests map[int64]*session.RequestHeaderData     // for WithCallCheck, by seq, indexed at its first ask
	byCall   map[callKey][]*session.RequestHeaderData // the same of its own events, by call
}

var _ llm.Driver = (*Driver)(nil)

// New builds a driver from logs already in memory, root and children in
// any order (children of one parent that have no parentCallId are matched
// by createdAt, then in the order given). The override, if any, comes from
// WithOverride. New is Prepare and Recording.Driver in one; a harness that
// replays one scenario several times prepares it once.
func New(logs []*session.Log, opts ...Option) (*Driver, error) {
	o := buildOptions(opts)
	rec, err := prepare(logs, o)
	if err != nil {
		return nil, err
	}
	return rec.driver(o)
}

// build links the scripts, which it does not change, into one tree of
// replay state of its own; logs, when in memory, are the scripts' logs.
func build(scripts []*Script, logs []*session.Log, o options) (*Driver, error) {
	advice := func() string { return o.advice }
	if o.advice == "" {
		advice = func() string { return "re-record with: " + o.record() }
	}
	d := &Driver{opts: o, advice: advice, byLive: map[string]*replay{}, ended: map[string]bool{}}
	if o.virtual {
		d.clock = &clock{wake: make(chan struct{})}
	}
	byID := map[string]*replay{}
	all := make([]*replay, 0, len(scripts))
	for i, s := range scripts {
		id := s.Header.ID
		if prev, dup := byID[id]; dup {
			return nil, fmt.Errorf("fakellm: %w: session %s appears in both %s and %s", ErrBadRecording, id, prev.script.Name, s.Name)
		}
		r := &replay{script: s}
		if logs != nil {
			r.log = logs[i]
		}
		byID[id] = r
		all = append(all, r)
	}
	for _, r := range all {
		h := &r.script.Header
		if !h.IsChild() {
			if d.root != nil {
				return nil, fmt.Errorf("fakellm: %w: two root sessions (without parentSession): %s and %s; a scenario records one root", ErrBadRecording, d.root.script.Name, r.script.Name)
			}
			d.root = r
			continue
		}
		p, ok := byID[h.ParentSession]
		if !ok {
			return nil, fmt.Errorf("fakellm: %w: %s names parent session %s, which is not among the logs", ErrBadRecording, r.script.Name, h.ParentSession)
		}
		r.parent = p
		p.children = append(p.children, r)
	}
	if d.root == nil {
		return nil, fmt.Errorf("fakellm: %w: no root session among %d logs (every log names a parent)", ErrBadRecording, len(scripts))
	}
	if n := d.name(d.root, "root"); n != len(all) {
		return nil, fmt.Errorf("fakellm: %w: %d of %d sessions are not reachable from the root (a parent cycle?)", ErrBadRecording, len(all)-n, len(all))
	}
	d.place()
	d.neverWaits = d.neverWaitsNow()
	return d, nil
}

// name sets the lineage of r and its descendants, appends them to d.order
// depth first and counts them. Children come in the order of the parent's
// recorded tool calls; children no call names (dsh logs) follow by
// createdAt, then in the order given.
func (d *Driver) name(r *replay, lineage string) int {
	r.lineage = lineage
	r.index = len(d.order)
	d.order = append(d.order, r)
	if len(r.children) == 0 { // most start none: listing the calls would grow with the session
		return 1
	}
	// The k-th child of a call id belongs to the k-th call with that id
	// (a parent may reuse an id in a later step), children of one id taken
	// in creation order as session.LineageOrder takes it: createdAt ties
	// (a recording on a fixed clock) fall to the ids' "#n", not to the
	// order given.
	heads := make([]*session.Header, len(r.children))
	for i, c := range r.children {
		heads[i] = &c.script.Header
	}
	byCreation := make([]*replay, len(r.children))
	for i, k := range session.CreationOrder(heads) {
		byCreation[i] = r.children[k]
	}
	r.children = byCreation
	calls := callSteps(r.script)
	for _, c := range r.children {
		id := c.script.Header.ParentCallID
		if at := calls[id]; id != "" && len(at) > 0 {
			c.created, calls[id] = &at[0], at[1:]
		}
	}
	slices.SortStableFunc(r.children, func(a, b *replay) int {
		switch {
		case a.created != nil && b.created != nil:
			return cmp.Compare(a.created.pos, b.created.pos)
		case a.created != nil:
			return -1
		case b.created != nil:
			return 1
		}
		return 0
	})
	n := 1
	seen := map[string]int{}
	for i, c := range r.children {
		id := c.script.Header.ParentCallID
		child := fmt.Sprintf("%s/#%d", lineage, i+1)
		if id != "" {
			seen[id]++
			child = session.ChildID(lineage, id, seen[id])
		}
		n += d.name(c, child)
	}
	return n
}

// toolCall is one tool call a recorded model call made: where, its
// position among all the script's tool calls, and the entry that first
// streams it.
type toolCall struct{ turn, step, pos, entry int }

// callSteps lists, per tool call id, every recorded tool call with that id
// in order: a parent that reuses an id in later steps has one per step. An
// id counts once per step, however many attempts of the step stream it.
func callSteps(s *Script) map[string][]toolCall {
	out := map[string][]toolCall{}
	n := 0
	var at callKey
	seen := map[string]bool{} // the ids of the step at
	for i, e := range s.Entries {
		if k := (callKey{e.Turn, e.Step, 0}); k != at || k == (callKey{}) { // an authored entry may have no step
			at = k
			clear(seen)
		}
		for _, c := range e.Chunks {
			id := c.ID // a tool-call-delta names the call first
			if c.Type == session.ChunkBlockEnd && c.Block != nil && c.Block.Type == session.BlockToolCall {
				id = c.Block.ID
			}
			if id != "" && !seen[id] {
				seen[id] = true
				out[id] = append(out[id], toolCall{e.Turn, e.Step, n, i})
				n++
			}
		}
	}
	return out
}

// Scripts returns the scripts the driver replays, after the override, in
// lineage order: the root, then each session's children depth first in
// the order of its tool calls. They are shared: do not modify them.
func (d *Driver) Scripts() []*Script {
	out := make([]*Script, len(d.order))
	for i, r := range d.order {
		out[i] = r.script
	}
	return out
}

// Notes returns what the driver noted while routing, such as children
// matched by first-call order because their logs have no parentCallId.
func (d *Driver) Notes() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.notes)
}

// Stream implements [llm.Driver]. It claims the next entry of the calling
// session's script and replays it. An entry with a recorded position is
// served only to a request with the same Turn and Step. An error means the
// call could not start: an unrecorded session, an exhausted script or a call
// on another path than the recording's. Each such error is also kept for
// [Driver.Check], because a runtime may turn a subagent's failure into a
// tool result nobody sees.
//
// The stream yields the entry's chunks (the driver's chunks are shared: do
// not modify them). A call that waits — a hang entry, or one recorded with
// an aborted finish (its context ended while it streamed) — yields its
// chunks before that finish, blocks until ctx is done, and then ends
// aborted, as the recorded call did; see [WithVirtualTime] for when a
// replay's timeouts end such waits.
func (d *Driver) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if req == nil {
		return nil, errors.New("fakellm: Stream called with a nil request")
	}
	e, p, f, err := d.claim(ctx, req)
	if err != nil {
		return nil, err
	}
	return d.play(ctx, e, p, f), nil
}

// claim binds the calling session and advances its cursor, under the lock,
// and returns the call's timing (nil without a schedule) and its flight.
func (d *Driver) claim(ctx context.Context, req *llm.Request) (Entry, *timing, *flight, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.bind(req)
	if err != nil {
		d.failures = append(d.failures, d.unboundFailure(req, err))
		return Entry{}, nil, nil, err
	}
	e, err := d.next(r, req)
	if r.parent == nil {
		r.lastSystem, r.lastFirst, r.asked, r.sentFirst = req.System, session.Message{}, true, len(req.Messages) > 0
		if r.sentFirst {
			r.lastFirst = req.Messages[0]
		}
	}
	if err != nil {
		r.diverged = true
		d.failures = append(d.failures, failure{order: r.index, err: err})
		return Entry{}, nil, nil, err
	}
	f := &flight{r: r, index: r.cursor - 1, ctx: ctx}
	r.flights = append(r.flights, f)
	if r.parent == nil && e.Turn > 0 {
		d.rootTurn = e.Turn
	}
	return e, d.plan(r, e), f, nil
}

// failure is a call that could not start, placed in lineage order so the
// teardown report reads the same under any schedule.
type failure struct {
	order int    // lineage index of the session, or of its parent
	sub   string // the call id (or live id) of a session the recording lacks
	err   error
}

func (d *Driver) unboundFailure(req *llm.Request, err error) failure {
	ref := req.Session
	if p, ok := d.byLive[ref.ParentID]; ok && !ref.IsRoot() {
		return failure{order: p.index, sub: ref.ParentCallID, err: err}
	}
	return failure{order: len(d.order), sub: ref.ID, err: err}
}

// next returns r's next entry after checking that the live call is where
// the recorded one was.
func (d *Driver) next(r *replay, req *llm.Request) (Entry, error) {
	entries := r.script.Entries
	if r.cursor >= len(entries) {
		return Entry{}, d.advised(fmt.Errorf("fakellm: %w: %s: asked for call %d, recorded %d (live call at turn %d step %d) — %sthe agent made more model calls than the recording; ",
			ErrScriptExhausted, r.describe(), r.callNumber(r.cursor), r.callNumber(len(entries)-1), req.Turn, req.Step, r.strayNote(req)))
	}
	e := entries[r.cursor]
	// Each of turn and step is checked unless it is 0 (authored: not checked).
	if e.Turn != 0 && e.Turn != req.Turn || e.Step != 0 && e.Step != req.Step {
		return Entry{}, d.advised(fmt.Errorf("fakellm: %w: %s: live call at turn %d step %d, the recording's next call (%d of %d) was at turn %d step %d — %sthe agent took another path; ",
			ErrPathMismatch, r.describe(), req.Turn, req.Step, r.callNumber(r.cursor), r.callNumber(len(entries)-1), e.Turn, e.Step, r.strayNote(req)))
	}
	if err := d.checkCall(r, e, req); err != nil {
		return Entry{}, err
	}
	if d.opts.release {
		entries[r.cursor].Chunks = nil // the call's stream holds them while it plays
	}
	r.cursor++
	return e, nil
}

// callNumber is the number messages give entry i of r's script: the
// number of its recorded call in the log (Entry.Call), which inspect,
// drift, record --only-changed, the report and derive give it. That is
// not its position where the log holds calls the script does not replay:
// failed attempts in acted-on mode, a call refused before it streamed, one
// dropped as incomplete. An entry without one (an authored script's) is
// numbered by its position, from 1. Past the last entry (i == len), it is
// the call after the last; before the first (i == -1), 0.
func (r *replay) callNumber(i int) int {
	entries := r.script.Entries
	switch {
	case i < 0:
		return 0
	case i == len(entries):
		return r.callNumber(i-1) + 1
	case entries[i].Call > 0:
		return entries[i].Call
	}
	return i + 1
}

// strayNote says, for a call of the root's script that does not go on
// from the root's last call — another system prompt, or another first
// message — that it looks like a subagent's call that named no session
// (an SDK agent's child whose HTTP client or context was not given its
// session: a runtime serves a call that names none as the root's), and
// how to name it; "" for any other call. It ends with "else ", for the
// message's own reason to follow. The caller holds d.mu.
func (r *replay) strayNote(req *llm.Request) string {
	if r.parent != nil || !r.asked {
		return ""
	}
	var first, last *session.Message
	if len(req.Messages) > 0 {
		first = &req.Messages[0]
	}
	if r.sentFirst {
		last = &r.lastFirst
	}
	var how string
	switch {
	case req.System != r.lastSystem:
		how = fmt.Sprintf("its system prompt is %q, the root's last call's %q", abbrev(req.System), abbrev(r.lastSystem))
	case (first == nil) != (last == nil) || first != nil && (first.Role != last.Role || first.Text() != last.Text()):
		how = fmt.Sprintf("its first message is %s, the root's last call's %s", showMessage(first), showMessage(last))
	default:
		return ""
	}
	return "this call does not go on from the root's conversation (" + how + "): it looks like a subagent's call made without the child's lineage, served from the root's script, which a re-recording does not mend; " +
		`name the child's session on its calls (README, "An agent on an SDK: swap its HTTP client": wire.Spawn or wire.Fork on the child's context; behind agentsnap serve, the Agentsnap-* headers); else `
}

// showMessage shows a call's first message for strayNote: its role and
// text.
func showMessage(m *session.Message) string {
	if m == nil {
		return "(none)"
	}
	return fmt.Sprintf("%s %q", m.Role, abbrev(m.Text()))
}

// describe names a recorded session for messages:
// "session root/call_7 (fork; session.2.jsonl)".
func (r *replay) describe() string {
	h := &r.script.Header
	if h.Mode != "" {
		return fmt.Sprintf("session %s (%s; %s)", r.lineage, h.Mode, baseName(r.script))
	}
	return fmt.Sprintf("session %s (%s)", r.lineage, baseName(r.script))
}

// play replays one entry as a stream, timed by the schedule's timing p;
// f is the call's flight, landed when the stream ends.
func (d *Driver) play(ctx context.Context, e Entry, p *timing, f *flight) iter.Seq[llm.Chunk] {
	return func(yield func(llm.Chunk) bool) {
		defer d.land(f)
		defer p.end()
		chunks, waits := e.Chunks, e.Waits()
		if waits && e.Kind == KindChunks {
			chunks = chunks[:len(chunks)-1] // the recorded aborted finish follows the wait
		}
		for i, c := range chunks {
			if !d.pause(ctx, p, i) {
				yield(abortedFinish())
				return
			}
			if !yield(c) {
				return
			}
		}
		switch {
		case e.Kind == KindThrow:
			msg := e.Message
			if msg == "" {
				msg = "fakellm: authored throw " + e.Code
			}
			if !d.pause(ctx, p, len(e.Chunks)) {
				yield(abortedFinish())
				return
			}
			yield(session.ErrorFinish(e.Code, msg))
		case waits:
			p.end() // a lagging call beside it need not hold for a wait
			d.await(ctx, f)
			if e.Kind == KindChunks {
				yield(e.Chunks[len(e.Chunks)-1])
				return
			}
			yield(abortedFinish())
		}
	}
}

// pause runs before chunk i (i == len(e.Chunks) before a throw's finish):
// the configured pace between chunks, then the schedule's wait; false when
// ctx ended first.
func (d *Driver) pause(ctx context.Context, p *timing, i int) bool {
	if i > 0 && d.opts.pace > 0 && wait.Sleep(ctx, d.opts.pace) != nil {
		return false
	}
	return p.wait(ctx, i)
}

func abortedFinish() llm.Chunk { return session.Finish(session.FinishAborted) }

// NeverWaits reports whether every call of the replay streams its answer
// at once: no schedule, no pace, and no recorded call that waits (a hang,
// an aborted stream). A transport may then serve a call on the caller's
// goroutine, knowing the answer comes whole without anything else
// happening first (wire.Transport does).
func (d *Driver) NeverWaits() bool { return d.neverWaits }

// neverWaitsNow works NeverWaits out, once the driver is built.
func (d *Driver) neverWaitsNow() bool {
	if d.opts.pace > 0 || d.opts.schedule != nil {
		return false
	}
	for _, r := range d.order {
		for i := range r.script.Entries {
			if r.script.Entries[i].Waits() {
				return false
			}
		}
	}
	return true
}
