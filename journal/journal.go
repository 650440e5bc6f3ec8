package journal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Config says where a tree of sessions is written and how its sessions are
// named and timed. Store is required.
type Config struct {
	Store persistence.Store
	// Clock stamps createdAt and every event's time; default time.Now.
	// Replays and playbook recordings fix it, so logs are byte-stable.
	Clock func() time.Time
	// IDs names the sessions; default session.NewLineageIDs("root"), which
	// names them alike in every run (root, root/call_1, ...).
	IDs IDs
	// Cwd and Preset are recorded in every header (cwd, agentPreset).
	Cwd    string
	Preset string
	// ToolReplay serves recorded tools (Journal.Tool) in a replay: the
	// Env's ToolReplay under agentsnap. Nil while recording: the tools run
	// (as they do for a call it answers llm.ErrRunTool).
	ToolReplay llm.ToolReplay
	// FlushAfterAnswers leaves what BeginCall and EndStep write to the next
	// flush that follows an answer (ToolCalls, EndTurn) or to Flush, rather
	// than storing it before the model answers: a runtime that records
	// each call as it serves it (the wire handler) then stores a call once,
	// after its answer. A crash loses the call in flight.
	FlushAfterAnswers bool
}

// IDs names new sessions. Implementations are safe for concurrent use;
// *session.LineageIDs is the deterministic one every agentsnap runtime uses.
type IDs interface {
	// Root returns the id of a new root session.
	Root() string
	// Child returns the id of the session that parent's tool call callID
	// creates. It is called from the goroutine creating the child, possibly
	// at the same time as for its siblings.
	Child(parent, callID string) string
}

func (c Config) withDefaults() (Config, error) {
	if c.Store == nil {
		return c, errors.New("journal: Config.Store is nil; give it a persistence.Store (persistence/memory for tests, the Env's Store under agentsnap)")
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.IDs == nil {
		c.IDs = session.NewLineageIDs("")
	}
	return c, nil
}

// Journal writes the log of one session. See the package documentation for
// the order of calls.
//
// The session's own goroutine makes every writing call; Events, Header and
// Child may be called from other goroutines at the same time (children of
// one step are created concurrently).
type Journal struct {
	cfg    Config
	header session.Header

	mu sync.Mutex // guards the slices and counts below against a concurrent Child or Events
	// events are the events not yet stored, seqs stored on: once appended
	// they are the store's, read back from it when needed (Events, a fork
	// child's seed), so a journal holds what it has yet to write, not the
	// whole log.
	events   eventList
	stored   int               // events already appended to the store, seed included
	messages []session.Message // the conversation so far, seed included
	digests  []string          // MessageDigest of each message
	chain    llm.DigestChain   // the digests, hashed as each message came (session goroutine only)
	digester llm.Digester      // what the session's calls sent, hashed once (guarded by mu)
	// gen counts the times the conversation was replaced rather than
	// appended to; given is what the last BeginCall knew of the
	// conversation it was given: its first same messages are the
	// session's own, as of generation gen (-1: nothing known), and
	// digested says the digester holds copies of it. Session goroutine only.
	gen   int
	given struct {
		same, gen int
		digested  bool
	}
	// completed is the end of the last completed turn in the log, and
	// completedMsgs and completedDigests the conversation there: what a fork
	// child inherits. The slices are capped views nothing writes through
	// (a history replaced later gets new slices), so children share them.
	completed        int
	completedMsgs    []session.Message
	completedDigests []string

	turn    int // the turn running, or the last one
	step    int // the step running, or the last one of the turn
	attempt int // model calls made in this step
	inStep  bool
	inTurn  bool
	// replaced is a history/replace made between turns, written after the
	// next turn/start.
	replaced *session.HistoryReplaceData

	arena   []byte // holds the payloads of events; see encodeChunk and keep
	scratch []byte // where emitOwn encodes a payload before keep copies it

	// Under mu: records of recorded tools (by call id) and MCP requests
	// and token counts not yet written; see Tool, RecordMCP and RecordCount.
	toolRecords map[string]session.ToolRecordedData
	mcpRecords  []session.MCPCallData
	counts      []session.CountTokensData
	// toRun holds the calls of the step Replayed found are to run (by
	// call id): their Tool runs run without asking Config.ToolReplay
	// again. Forgotten at the step's end (forgetToRun).
	toRun map[string]bool
}

// NewRoot creates a root session. Nothing is written until its first event
// is flushed.
func NewRoot(ctx context.Context, cfg Config) (*Journal, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := session.Header{
		ID:          c.IDs.Root(),
		CreatedAt:   c.Clock().UnixMilli(),
		Cwd:         c.Cwd,
		AgentPreset: c.Preset,
	}
	if err := c.Store.Create(ctx, h, nil); err != nil {
		return nil, fmt.Errorf("journal: create session %s: %w", h.ID, err)
	}
	return &Journal{cfg: c, header: h}, nil
}

// Resume loads the session id from the store so it can take more turns.
// Its header — seedLength and createdAt included — comes back as stored,
// never recomputed. A log that ends inside a turn is refused; stores repair
// interrupted turns on load.
func Resume(ctx context.Context, cfg Config, id string) (*Journal, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	l, err := c.Store.Load(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("journal: resume %s: %w", id, err)
	}
	if open, turn := openTurn(l.Events); open {
		return nil, fmt.Errorf("journal: resume %s: the log ends inside turn %d (no turn/end); load it through a store that repairs interrupted turns", id, turn)
	}
	return resumed(c, l.Header, l.Events), nil
}

// resumed continues a stored log: its conversation is rebuilt from the
// events.
func resumed(c Config, h session.Header, events []session.Event) *Journal {
	j := &Journal{cfg: c, header: h, stored: len(events)} // the events are the store's
	j.completed = session.CompletedPrefix(events)
	for _, m := range Conversation(events[:j.completed]) {
		j.addMessage(m)
	}
	j.markCompleted()
	for _, m := range Conversation(events)[len(j.messages):] {
		j.addMessage(m)
	}
	j.turn = LastTurn(events)
	return j
}

// ID returns the session id.
func (j *Journal) ID() string { return j.header.ID }

// Header returns the session's header.
func (j *Journal) Header() session.Header { return j.header }

// Ref returns the session's identity and lineage, what every model call of
// the session carries (llm.Request.Session).
func (j *Journal) Ref() llm.SessionRef {
	return llm.SessionRef{
		ID:           j.header.ID,
		ParentID:     j.header.ParentSession,
		ParentCallID: j.header.ParentCallID,
		Mode:         j.header.Mode,
		Depth:        j.header.DelegationDepth,
	}
}

// Events returns the log so far, seed included: the events stored, read
// back from the store, and those not yet flushed. It costs a Store.Load of
// the whole log (a file or database read, for a store on disk), since the
// journal keeps only what it has yet to write: call it to inspect a
// session, not on every step. The events are the caller's; their raw
// members may be shared with the store and must not be written to.
func (j *Journal) Events(ctx context.Context) ([]session.Event, error) {
	j.mu.Lock()
	stored := j.stored
	unstored := j.events.appendTo(nil, 0, j.events.len())
	j.mu.Unlock()
	events, err := j.loadPrefix(ctx, stored)
	if err != nil {
		return nil, fmt.Errorf("journal: events of session %s: %w", j.header.ID, err)
	}
	return append(events, unstored...), nil
}

// loadPrefix returns the first n events of the session as the store holds
// them. Load closes a log that ends inside a turn with closers; they
// follow the stored events, past n.
func (j *Journal) loadPrefix(ctx context.Context, n int) ([]session.Event, error) {
	if n == 0 {
		return nil, nil
	}
	l, err := j.cfg.Store.Load(ctx, j.header.ID)
	if err != nil {
		return nil, fmt.Errorf("read back its stored events: %w", err)
	}
	if len(l.Events) < n {
		return nil, fmt.Errorf("the store gives back %d events, but %d were appended to it; a store must keep every event appended to it", len(l.Events), n)
	}
	return l.Events[:n:n], nil
}

// Messages returns the conversation so far — the inherited one of a fork
// child included — as a model call sends it. The slice is the journal's:
// do not modify it; it is valid until the next writing call.
func (j *Journal) Messages() []session.Message { return j.messages }

// Completed returns the messages of the conversation its completed turns
// hold: what a fork child created now inherits. Do not modify them.
func (j *Journal) Completed() []session.Message {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.completedMsgs
}

// Turn returns the number of the turn running, or of the last one.
func (j *Journal) Turn() int { return j.turn }

// Step returns the number of the step running, or of the turn's last one.
func (j *Journal) Step() int { return j.step }

// markCompleted notes the conversation so far as the one a fork child
// inherits. The caller holds j.mu, or owns j alone.
func (j *Journal) markCompleted() {
	j.completedMsgs = j.messages[:len(j.messages):len(j.messages)]
	j.completedDigests = j.digests[:len(j.digests):len(j.digests)]
}

// replaceMessages keeps the first keep messages and appends history, in
// new slices: a fork child may share the old ones.
func (j *Journal) replaceMessages(keep int, history []session.Message) {
	msgs := append(j.messages[:keep:keep], history...)
	digests := j.digests[:keep:keep]
	for i := range history {
		digests = append(digests, llm.MessageDigest(&history[i]))
	}
	j.chain = llm.DigestChain{}
	for _, d := range digests {
		j.chain.Add(d)
	}
	j.mu.Lock()
	j.messages, j.digests = msgs, digests
	j.mu.Unlock()
	j.gen++
}

// addMessage appends m and its digest. It digests the copy in j.messages:
// digesting &m would move m to the heap, one allocation a message.
func (j *Journal) addMessage(m session.Message) {
	j.mu.Lock()
	j.messages = append(j.messages, m)
	d := llm.MessageDigest(&j.messages[len(j.messages)-1])
	j.digests = append(j.digests, d)
	j.mu.Unlock()
	j.chain.Add(d)
}
