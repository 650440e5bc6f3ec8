package recorder

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// reuse is the model of an only-changed recording: every session replays
// its recorded calls while the agent's requests match them, and from its
// first call that does not — or from its first call, for a session the
// recording lacks, one created after its parent went live, or one
// Options.Session names — asks the model (live, or the playbook).
type reuse struct {
	old    []*session.Log  // the recording, in lineage order; nil when there is none
	kept   map[string]bool // the lineage paths of the logs kept whole, once rendered
	replay *fakellm.Driver // nil when there is no recording
	// bare holds the lineage paths of the recorded logs whose
	// request/header events name no turn or step and hold no digest of
	// what was sent (dsh's): none of their calls can be told unchanged.
	bare     map[string]bool
	bareLogs []string   // their files, in lineage order
	model    llm.Driver // set by run: the live driver behind its watch, or the playbook
	session  string     // Options.Session
	replayed func(*llm.Request)

	mu       sync.Mutex
	sessions map[string]*reused // by live session id
	children map[string]int     // by parent path and call id: children seen
}

// reused is what one live session of the recording did.
type reused struct {
	lineage  string // its lineage path as its parent's and its call make it
	calls    int    // model calls made
	liveFrom int    // the 1-based call it asked the model from; 0 while it replays
	why      string // why it went to the model
	turn     int    // where its call liveFrom was
	step     int
	live     int // calls sent to the model
	tokens   budget.Tokens
}

// errForced refuses the replay of a session Options.Session names.
var errForced = errors.New("named by --session (or -record-session from a test)")

// driftError refuses the replay of a call whose request changed.
type driftError struct{ changes []string }

func (e *driftError) Error() string { return strings.Join(e.changes, "; ") }

// loadRecording reads the fixture an only-changed recording keeps what it
// can of: its logs in lineage order, nil when dir was never recorded.
func loadRecording(dir string, sc *scenario.Scenario, opts *Options) ([]*session.Log, error) {
	if _, err := os.Stat(filepath.Join(dir, fixture.RootLog)); errors.Is(err, os.ErrNotExist) {
		if opts.Session != "" {
			return nil, fmt.Errorf("recorder: %s: --session %s: the scenario was never recorded, so there is nothing to keep; record it without --session", dir, opts.Session)
		}
		return nil, nil
	}
	if rec := sc.Recorded; opts.Playbook != "" && rec != nil && rec.Playbook != "" && !samePlaybook(dir, opts.Playbook, rec.Playbook) {
		return nil, fmt.Errorf("recorder: %s: playbook.json changed since the recording, so the answers --only-changed would keep may no longer be the playbook's; record without --only-changed: a playbook recording is deterministic, so the sessions the change does not touch keep their bytes anyway", dir)
	}
	fx, err := fixture.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("recorder: --only-changed keeps what still matches the recording, which does not load: %w; or record without --only-changed", err)
	}
	if opts.Session != "" {
		keys := session.LineageKeys(fx.Logs)
		paths := make([]string, 0, len(fx.Logs))
		for _, l := range fx.Logs {
			paths = append(paths, keys[l.Header.ID])
		}
		if !slices.Contains(paths, opts.Session) {
			return nil, fmt.Errorf("recorder: %s: --session %s names no recorded session; the recording has %s", dir, opts.Session, strings.Join(paths, ", "))
		}
	}
	return fx.Logs, nil
}

// samePlaybook reports whether the playbook a recording answers from,
// whose digest is now, is the one recorded: the digests agree, or the
// recorded one is that of the playbook's own bytes, which a recording from
// a checkout with CRLF line endings held before they counted as LF
// (fixture.PlaybookRecorded, as the replay's staleness check takes it).
func samePlaybook(dir, now, recorded string) bool {
	if now == recorded {
		return true
	}
	b, err := os.ReadFile(filepath.Join(dir, fixture.PlaybookFile))
	return err == nil && fixture.PlaybookDigest(b) == now && fixture.PlaybookRecorded(b, recorded)
}

// newReuse builds the model of an only-changed recording of old.
func newReuse(dir string, old []*session.Log, opts *Options) (*reuse, error) {
	r := &reuse{old: old, session: opts.Session, replayed: opts.Replayed, sessions: map[string]*reused{}, children: map[string]int{}}
	if old == nil {
		return r, nil
	}
	d, err := fakellm.New(old, fakellm.WithCallCheck(r.check))
	if err != nil {
		return nil, fmt.Errorf("recorder: --only-changed replays the recording of %s, which does not derive: %w; or record without --only-changed", dir, err)
	}
	r.replay = d
	r.bare = map[string]bool{}
	keys := session.LineageKeys(old)
	for i, l := range old {
		if bareHeaders(l) {
			r.bare[keys[l.Header.ID]] = true
			name := fixture.RootLog
			if i > 0 {
				name = fixture.ChildLog(i)
			}
			r.bareLogs = append(r.bareLogs, name)
		}
	}
	return r, nil
}

// bareHeaders reports whether l's own request/header events, of which it
// has some, all lack what tells a call's request unchanged: its turn and
// step and the digests of what was sent, as dsh writes them
// ({"header": {"config": ...}, "reason": ...}).
func bareHeaders(l *session.Log) bool {
	seen := false
	for _, e := range l.Own() {
		if e.Type != session.TypeRequestHeader {
			continue
		}
		var h session.RequestHeaderData
		if e.Decode(&h) == nil && (h.Turn > 0 || h.MessagesDigest != "") {
			return false
		}
		seen = true
	}
	return seen
}

// warning says why every call of the recording's bare logs goes to the
// model, or "".
func (r *reuse) warning() string {
	if r == nil || len(r.bareLogs) == 0 {
		return ""
	}
	names := strings.Join(r.bareLogs, ", ")
	if n := len(r.bareLogs); n > 1 {
		names = strings.Join(r.bareLogs[:n-1], ", ") + " and " + r.bareLogs[n-1]
	}
	return fmt.Sprintf("--only-changed: the request/header events of %s name no turn or step and hold no digest of what was sent (as dsh writes them), so nothing tells whether a call's request changed: every call of those sessions is sent to the model; the logs this recording writes have them, so the next --only-changed keeps what still matches", names)
}

// keeper returns what render lets keep the recording's logs, or nil (also
// for no reuse).
func (r *reuse) keeper() func(map[string][]byte, []*session.Log) {
	if r == nil || r.old == nil {
		return nil
	}
	return func(files map[string][]byte, rendered []*session.Log) { r.kept = keepRecorded(files, rendered, r.old) }
}

// check refuses the replay of a call Options.Session names, or whose
// request differs from the recorded one.
func (r *reuse) check(c fakellm.RecordedCall, req *llm.Request) error {
	if r.forced(c.Lineage) {
		return errForced
	}
	if c.Request == nil {
		if r.bare[c.Lineage] {
			return &driftError{[]string{"its recorded request/header names no turn or step and holds no digest of what was sent (a dsh log's), so nothing tells whether the request changed"}}
		}
		return &driftError{[]string{"the recording holds no request/header for the call, so it cannot tell whether the request changed"}}
	}
	now := llm.RequestHeader(c.Request.Provider, req)
	if changes := judge.RequestChanges(*c.Request, now); len(changes) > 0 {
		return &driftError{changes}
	}
	return nil
}

// Stream replays the call when its session still replays and the call
// matches its recording, and asks the model otherwise.
func (r *reuse) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if req == nil {
		return nil, errors.New("recorder: Stream called with a nil request")
	}
	s, live := r.start(req)
	if !live {
		seq, err := r.replay.Stream(ctx, req)
		if err == nil {
			if r.replayed != nil {
				r.replayed(req)
			}
			return seq, nil
		}
		r.goLive(s, req, why(err, req))
	}
	r.mu.Lock()
	s.live++
	r.mu.Unlock()
	seq, err := r.model.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	return r.count(s, seq), nil
}

// start notes a call of req's session and says whether it goes to the
// model: the session went live before, or it is new and cannot replay.
func (r *reuse) start(req *llm.Request) (*reused, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessionOf(req.Session)
	if s.calls == 0 {
		s.turn, s.step = req.Turn, req.Step
	}
	s.calls++
	return s, s.liveFrom > 0
}

// sessionOf returns what the live session ref did, noting it on its first
// call or recorded tool: a session the recording lacks, or created after
// its parent went to the model, goes there from its first call. The
// caller holds r.mu.
func (r *reuse) sessionOf(ref llm.SessionRef) *reused {
	s, ok := r.sessions[ref.ID]
	if !ok {
		s = &reused{lineage: "root"}
		r.sessions[ref.ID] = s
		p := r.sessions[ref.ParentID]
		if !ref.IsRoot() && p != nil {
			// As session.LineageKeys names it: "#n" for the n-th child of
			// a repeated call id, created one step after another. The
			// order they first come in is that order only when each
			// first calls before the next is created; a child may run
			// beside its parent and first call after a later sibling.
			// The "#n" of an id session.LineageIDs gave (journal's
			// default) is its rank in creation order, which numbers the
			// recording's children too (session.CreationOrder).
			base := p.lineage + "/" + ref.ParentCallID
			r.children[base]++
			n := r.children[base]
			if k := session.ChildNumber(ref.ID, ref.ParentID, ref.ParentCallID); k > 0 {
				n = k
			}
			s.lineage = session.ChildID(p.lineage, ref.ParentCallID, n)
			if ref.ParentCallID == "" {
				s.lineage = p.lineage + "/#" + strconv.Itoa(r.children[base])
			}
		}
		switch {
		case r.replay == nil:
			s.liveFrom, s.why = 1, "the scenario was never recorded"
		case !ref.IsRoot() && p != nil && p.liveFrom > 0:
			s.liveFrom, s.why = 1, "created after its parent went to the model"
		case r.forced(s.lineage):
			// From the start: its recorded tools and MCP requests, even
			// those before its first model call, are recorded anew too.
			s.liveFrom, s.why = 1, errForced.Error()
		}
		if r.replay != nil {
			// Bound to its recorded session now, under r.mu, in the order
			// that named its lineage, whether it replays or not: else a
			// session that never asks the replay (named by --session)
			// leaves its recording to a later child of the same call id,
			// which replays and asks first — with a model call, or a
			// recorded tool or MCP request made before the named one's
			// first model call — and is served the wrong recording. One
			// the recording lacks stays unbound; its calls say why.
			_ = r.replay.Bind(ref)
		}
	}
	return s
}

// forced reports whether the session at lineage path is one
// Options.Session re-records, or in its subtree.
func (r *reuse) forced(lineage string) bool {
	return r.session != "" && (lineage == r.session || strings.HasPrefix(lineage, r.session+"/"))
}

// replays reports whether session ref still replays its recorded calls,
// so its recorded tools and MCP requests get their recorded answers.
func (r *reuse) replays(ref llm.SessionRef) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessionOf(ref).liveFrom == 0
}

// ReplayTool implements llm.ToolReplay: a session that still replays its
// recorded model calls gets the recorded output of its call, as in a
// replay — the tool's answer may have changed since (that is why it is
// recorded), and running it would send a new result and re-record the
// session for nothing. A session that went to the model, and a call the
// recording holds no output for (or with other arguments), run the tool
// (llm.ErrRunTool), and its output is recorded.
func (r *reuse) ReplayTool(ctx context.Context, ref llm.SessionRef, call session.ToolRecordedData) (session.ToolOutput, error) {
	if !r.replays(ref) {
		return session.ToolOutput{}, llm.ErrRunTool
	}
	out, err := r.replay.ReplayTool(ctx, ref, call)
	if err != nil {
		return session.ToolOutput{}, fmt.Errorf("%w (%w)", llm.ErrRunTool, err)
	}
	return out, nil
}

// ReplayMCP implements llm.ToolReplay as ReplayTool does, for the MCP
// requests of a session: the recorded answer while it replays, the
// server's (llm.ErrRunTool) once it went to the model or for a request
// the recording lacks.
func (r *reuse) ReplayMCP(ctx context.Context, ref llm.SessionRef, call session.MCPCallData) (session.MCPCallData, error) {
	if !r.replays(ref) {
		return session.MCPCallData{}, llm.ErrRunTool
	}
	rec, err := r.replay.ReplayMCP(ctx, ref, call)
	if err != nil {
		return session.MCPCallData{}, fmt.Errorf("%w (%w)", llm.ErrRunTool, err)
	}
	return rec, nil
}

// ReplayCount implements llm.CountReplay as ReplayMCP does, for the
// token counts of a session: the recorded count while it replays, the
// model's (llm.ErrRunTool) once it went to the model or for a request the
// recording lacks.
func (r *reuse) ReplayCount(ctx context.Context, ref llm.SessionRef, call session.CountTokensData) (session.CountTokensData, error) {
	if !r.replays(ref) {
		return session.CountTokensData{}, llm.ErrRunTool
	}
	rec, err := r.replay.ReplayCount(ctx, ref, call)
	if err != nil {
		return session.CountTokensData{}, fmt.Errorf("%w (%w)", llm.ErrRunTool, err)
	}
	return rec, nil
}

// CountTokens implements llm.TokenCounter: the model counts what the
// recording does not serve (ReplayCount).
func (r *reuse) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	return llm.CountTokens(ctx, r.model, req)
}

// goLive sends s to the model from its call req on.
func (r *reuse) goLive(s *reused, req *llm.Request, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.liveFrom, s.why, s.turn, s.step = s.calls, why, req.Turn, req.Step
}

// why says why a call could not replay, from the replay driver's error.
func why(err error, req *llm.Request) string {
	var drift *driftError
	switch {
	case errors.Is(err, errForced):
		return errForced.Error()
	case errors.As(err, &drift):
		return drift.Error()
	case errors.Is(err, fakellm.ErrUnrecordedSession):
		return "the recording has no such session"
	case errors.Is(err, fakellm.ErrScriptExhausted):
		return "the session makes more model calls than recorded"
	case errors.Is(err, fakellm.ErrPathMismatch):
		return fmt.Sprintf("the agent took another path (a call at turn %d step %d)", req.Turn, req.Step)
	}
	return err.Error()
}

// count passes a live stream on and adds its usage to s.
func (r *reuse) count(s *reused, seq iter.Seq[llm.Chunk]) iter.Seq[llm.Chunk] {
	return func(yield func(llm.Chunk) bool) {
		for c := range seq {
			if c.Type == session.ChunkUsage && c.Usage != nil {
				r.mu.Lock()
				s.tokens = s.tokens.Plus(budget.TokensOf(c.Usage))
				r.mu.Unlock()
			}
			if !yield(c) {
				return
			}
		}
	}
}

// of returns what live session id did, or nil when it made no call.
func (r *reuse) of(id string) *reused {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[id]; ok {
		c := *s
		return &c
	}
	return nil
}
