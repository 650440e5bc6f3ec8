package fakellm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentsnap/agentsnap/session"
)

// Attempts selects which attempts of a step a derived script replays.
type Attempts string

// Attempt modes.
const (
	// AttemptsEvery replays every attempt, failed ones included, so the
	// runtime meets the same failures and recovers from them again. It is
	// the default (the zero value means the same).
	AttemptsEvery Attempts = "every"
	// AttemptsActedOn replays only the last attempt of each step: the one
	// the agent acted on.
	AttemptsActedOn Attempts = "acted-on"
)

// ParseAttempts parses a mode name ("every" or "acted-on").
func ParseAttempts(s string) (Attempts, error) {
	switch a := Attempts(s); a {
	case AttemptsEvery, AttemptsActedOn:
		return a, nil
	}
	return "", fmt.Errorf(`fakellm: unknown attempt mode %q (want "every" or "acted-on")`, s)
}

// DeriveOptions tune script derivation. The zero value is the default:
// every attempt, incomplete calls are errors, the seed is sliced off.
type DeriveOptions struct {
	Attempts Attempts

	// DropIncomplete drops model calls that have no finish chunk — what a
	// crash while recording leaves in a resumed log — instead of failing.
	// Dropped calls are listed in Script.Dropped, never dropped silently.
	DropIncomplete bool

	// IgnoreSeed derives from the whole log, inherited prefix included.
	// It is wrong for replay — a fork child would replay its parent's
	// answers — and exists for regression tests only, to show that the
	// seed slice matters.
	IgnoreSeed bool

	// advice is WithAdvice's text, which refusals end with instead of
	// advice to re-record the scenario or run the CLI: a recording made
	// moments before by the runtime under test (package conformance) is
	// that runtime's fault.
	advice string
}

// fix returns what a refusal of a log ends with: WithAdvice's text, else
// def, what mends a fixture on disk.
func (o *DeriveOptions) fix(def string) string {
	if o.advice != "" {
		return o.advice
	}
	return def
}

// Script is the replay script of one recorded session.
type Script struct {
	Name    string         // where the log came from (its path), for messages
	Header  session.Header // the recorded session's header
	Entries []Entry        // one per recorded model call, in order
	// Tools and MCP are the session's recorded tool results (tool/recorded)
	// and MCP answers (mcp/call), Counts its token counts (count/tokens),
	// from its own events, in order.
	Tools   []session.ToolRecordedData
	MCP     []session.MCPCallData
	Counts  []session.CountTokensData
	Dropped []Dropped // incomplete calls dropped by DropIncomplete
	// Torn is a torn last line (a crash mid-write) that DropIncomplete let
	// derivation skip; without it such a log is refused.
	Torn *session.TornLine

	// turnEnds is how each of the session's own turns ended (turn/end
	// reason kind by turn), for the virtual clock: a driver built without
	// the logs in memory has it from here. nil from a Deriver of one's own.
	turnEnds map[int]string
	// asked holds, for each entry, 1 + the seq of the last request/header
	// before its call's first chunk (0 for none): the request of that
	// attempt, which (turn, step, attempt) cannot tell in a log without
	// attempt numbers (dsh v0), where a retried call's attempts share
	// them. For WithCallCheck; nil from a Deriver of one's own.
	asked []int64
}

// Dropped describes an incomplete model call that derivation dropped.
type Dropped struct {
	Turn, Step, Attempt int
	Chunks              int // chunks recorded before the log ends or moves on
}

// Deriver derives a session's script from its log in memory. The default is
// DeriveLog with the driver's DeriveOptions; tests inject others.
type Deriver func(l *session.Log) (*Script, error)

// Derive reads a log from r and derives its script; name is used in errors
// (usually the file's path). It streams: the log is never held in memory,
// and the chunks of the inherited prefix are not decoded.
//
// The script comes from the session's own events, events[seedLength:]. A
// seedLength must end the seed right after a turn/end (the balanced
// completed-turn prefix a fork child inherits, [session.CompletedPrefix]):
// one that falls inside a turn — inside a model call, say — would hand the
// child a call that begins mid-answer, so the log is refused with an error
// that starts "name:1:" (the header's seedLength), names the seq where the
// seed ends and wraps [session.ErrSeedBoundary]. IgnoreSeed skips the check.
//
// Each model call becomes one [Entry]: its assistant/chunk events, closed
// by the finish chunk (a KindChunks entry). A call without a finish is one
// of two things:
//
//   - a user's cancel, when the same turn then ends with a turn/end of kind
//     "aborted" (events such as assistant/message or step/end may come
//     between): a KindHang entry of the chunks recorded before the cancel,
//     which replays that prefix and then waits until the turn's context is
//     cancelled — the replay cancels where the recording did;
//   - an incomplete call otherwise — the log ends, another call starts, or
//     the turn ends any other way, such as "interrupted", which crash repair
//     writes: an error wrapping [ErrIncompleteCall], or a [Dropped] entry
//     with DropIncomplete.
func Derive(r io.Reader, name string, opts DeriveOptions) (*Script, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	rd := session.NewReader(r, name)
	h, err := rd.Header()
	if err != nil {
		return nil, err // a *session.ParseError: "file:line: ..." comes first
	}
	g := newGrouper(rd.Name(), h, opts)
	// Called while the event of seq is the reader's last: its line.
	g.locate = func(int64) string { return fmt.Sprintf("%s:%d", rd.Name(), rd.Line()) }
	skip := h.SeedLength
	if opts.IgnoreSeed {
		skip = 0
	}
	for i := 0; ; i++ {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A *session.ParseError, location first; a seedLength past
			// the end surfaces here too, as session.ErrSeedPastEnd.
			return nil, err
		}
		if i < skip { // inherited
			if i == skip-1 {
				if err := session.CheckSeedEnd(&e, skip); err != nil {
					return nil, seedError(rd.Name(), true, err, &opts)
				}
			}
			continue
		}
		if err := g.add(&e); err != nil {
			return nil, err
		}
	}
	if err := tornTail(rd.Name(), rd.Torn(), opts); err != nil {
		return nil, err
	}
	sc, err := g.end()
	if sc != nil {
		sc.Torn = rd.Torn()
	}
	return sc, err
}

// tornTail refuses a log whose last line is torn unless DropIncomplete
// allows dropping crash artifacts: a torn line is never skipped silently.
func tornTail(name string, t *session.TornLine, opts DeriveOptions) error {
	if t == nil || opts.DropIncomplete {
		return nil
	}
	return fmt.Errorf("fakellm: derive %s:%d: %w: the last line is incomplete (%d bytes, a crash mid-write); load the log through a persistence store to repair it, or derive with --drop-incomplete to skip it", name, t.Line, ErrTornLog, t.Bytes)
}

// DeriveFile derives the script of the log at path; see [Derive].
func DeriveFile(path string, opts DeriveOptions) (*Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fakellm: derive: %w", err)
	}
	defer f.Close()
	return Derive(f, path, opts)
}

// DeriveLog derives the script of a log already in memory from its own
// events, l.Events[SeedLength:]. It derives what [Derive] derives from the
// same log and refuses what Derive refuses: a seedLength that does not end
// at a turn/end, an incomplete call (a call without a finish whose turn was
// not cancelled by the user; a cancelled one is a KindHang entry).
func DeriveLog(l *session.Log, opts DeriveOptions) (*Script, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	name := logName(l)
	events := l.Events
	if !opts.IgnoreSeed {
		if n := l.Header.SeedLength; n < 0 || n > len(events) {
			// Located as a boundary error is: the header holds seedLength.
			err := fmt.Errorf("%w: seedLength is %d but the log of session %s holds %d events, and the inherited prefix cannot be longer than the log; if the log was cut short (a hand edit, a partial copy), restore it from version control, else the fork backend stamped a seedLength other than the length of the prefix it handed the child", session.ErrSeedPastEnd, n, l.Header.ID, len(events))
			return nil, seedError(name, l.Path != "", err, &opts)
		}
		if err := session.CheckSeedBoundary(events, l.Header.SeedLength); err != nil {
			return nil, seedError(name, l.Path != "", err, &opts)
		}
		events = events[l.Header.SeedLength:]
	}
	if err := tornTail(name, l.Torn, opts); err != nil {
		return nil, err
	}
	g := newGrouper(name, &l.Header, opts)
	g.locate = func(seq int64) string { return locate(l, seq) }
	g.reserve(events)
	for i := range events {
		if err := g.add(&events[i]); err != nil {
			return nil, err
		}
	}
	sc, err := g.end()
	if sc != nil {
		sc.Torn = l.Torn
	}
	return sc, err
}

// locate names the event of seq of l for a message: "file:line" when l was
// read from a file, found by reading the file again — only on the way to an
// error, so deriving a log in memory keeps no line numbers — else the
// log's name.
func locate(l *session.Log, seq int64) string {
	name := logName(l)
	if l.Path == "" {
		return name
	}
	f, err := os.Open(l.Path)
	if err != nil {
		return name
	}
	defer f.Close()
	rd := session.NewReader(f, l.Path)
	for {
		e, err := rd.Next()
		switch {
		case err != nil:
			return name
		case e.Seq == seq:
			return fmt.Sprintf("%s:%d", l.Path, rd.Line())
		}
	}
}

// seedError locates a seed boundary error: at line 1, the header that holds
// seedLength, when the log is a file; the seq is in err.
func seedError(name string, file bool, err error, opts *DeriveOptions) error {
	err = fmt.Errorf("%w — %s", err, opts.fix("fix the backend and re-record the scenario"))
	if file {
		return &session.ParseError{File: name, Line: 1, Err: err}
	}
	return fmt.Errorf("fakellm: derive %s: %w", name, err)
}

func checkOptions(opts DeriveOptions) error {
	switch opts.Attempts {
	case "", AttemptsEvery, AttemptsActedOn:
		return nil
	}
	_, err := ParseAttempts(string(opts.Attempts))
	return err
}

// logName names a log in messages: its path, else its session id.
func logName(l *session.Log) string {
	if l.Path != "" {
		return l.Path
	}
	return "session " + l.Header.ID
}

// callKey identifies one model call of a session.
type callKey struct{ turn, step, attempt int }

// grouper turns a session's own events into script entries: the
// assistant/chunk events of one (turn, step, attempt), closed by a finish —
// or, for a call the user cancelled, by its turn's aborted turn/end.
type grouper struct {
	name   string
	header *session.Header
	opts   DeriveOptions
	script Script

	open    bool // a call has chunks but no finish yet: undecided until its turn/end
	key     callKey
	cur     Entry           // the open call; its chunks gather in buf
	buf     []session.Chunk // reused: each entry gets one exact-size copy
	closed  bool            // the last call was closed by its finish
	lastKey callKey
	check   callCheck           // the open call's chunks against the contract
	lastAsk int64               // 1 + the seq of the last request/header not yet a call's, or 0
	calls   session.CallCounter // numbers the calls as the log's readers do (Entry.Call)
	asked   int64               // the open call's (Script.asked)

	// locate names the event of seq, "file:line" where the line is known.
	locate func(seq int64) string

	// pool, when reserved, holds the chunks of every entry: buf is the
	// room after them, and an entry's Chunks a capped window of it, so a
	// script costs one allocation for its chunks instead of one per entry.
	pool []session.Chunk
}

// reserve makes room in the pool for the chunks of events, when they are
// all in memory to be counted.
func (g *grouper) reserve(events []session.Event) {
	n := 0
	for i := range events {
		if events[i].Type == session.TypeAssistantChunk {
			n++
		}
	}
	if n > 0 {
		g.pool = make([]session.Chunk, 0, n)
		g.buf = g.pool
	}
}

func newGrouper(name string, h *session.Header, opts DeriveOptions) *grouper {
	return &grouper{name: name, header: h, opts: opts, script: Script{Name: name, Header: *h}}
}

func (g *grouper) add(e *session.Event) error {
	if e.Type != session.TypeAssistantChunk {
		g.calls.Add(e, nil) // a chunk is counted once decoded
	}
	switch e.Type {
	case session.TypeAssistantChunk:
		return g.chunk(e)
	case session.TypeRequestHeader:
		g.lastAsk = e.Seq + 1
	case session.TypeTurnEnd:
		g.noteTurnEnd(e)
		if g.open {
			return g.turnEnd(e)
		}
	case session.TypeToolRecorded:
		var d session.ToolRecordedData
		if err := e.Decode(&d); err != nil {
			return fmt.Errorf("fakellm: derive %s: session %s: tool/recorded seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
		}
		if missing := missingToolMember(&d, e.Data); missing != "" {
			// Replayed as it is, it would serve an empty result, or read as
			// drift of a tool named "".
			return fmt.Errorf("fakellm: derive %s: session %s: tool/recorded seq %d has no %q (it needs callId, name, arguments and result: CONTRACT.md 6a) — %s", g.locate(e.Seq), g.header.ID, e.Seq, missing, g.opts.fix("re-record the scenario; a hand-edited log must keep to the contract too"))
		}
		g.script.Tools = append(g.script.Tools, d)
	case session.TypeMCPCall:
		var d session.MCPCallData
		if err := e.Decode(&d); err != nil {
			return fmt.Errorf("fakellm: derive %s: session %s: mcp/call seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
		}
		g.script.MCP = append(g.script.MCP, d)
	case session.TypeCountTokens:
		var d session.CountTokensData
		if err := e.Decode(&d); err != nil {
			return fmt.Errorf("fakellm: derive %s: session %s: count/tokens seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
		}
		if d.Digest == "" {
			// Replayed as it is, every count request would read as drift.
			return fmt.Errorf("fakellm: derive %s: session %s: count/tokens seq %d has no \"digest\" (it needs api, digest and inputTokens: CONTRACT.md 6a) — re-record the scenario; a hand-edited log must keep to the contract too", g.locate(e.Seq), g.header.ID, e.Seq)
		}
		g.script.Counts = append(g.script.Counts, d)
	}
	return nil // other events, known or not, say nothing about the calls
}

// missingToolMember names the first member a tool/recorded event, d
// decoded from data, lacks among those a replay serves it by — callId
// (journal never writes an empty one), name, arguments (the call's are
// compared with them: without, every call reads as drift), result — or "".
func missingToolMember(d *session.ToolRecordedData, data json.RawMessage) string {
	if d.CallID == "" {
		return "callId"
	}
	var has struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(data, &has) // it decoded into d
	absent := func(m json.RawMessage) bool { return len(m) == 0 || string(m) == "null" }
	switch {
	case absent(has.Name):
		return "name"
	case absent(has.Arguments):
		return "arguments"
	case absent(has.Result):
		return "result"
	}
	return ""
}

func (g *grouper) chunk(e *session.Event) error {
	d, err := session.DecodeChunkData(e.Data)
	if err != nil {
		return fmt.Errorf("fakellm: derive %s: session %s: assistant/chunk seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
	}
	k := callKey{d.Turn, d.Step, d.Attempt}
	call := g.calls.Add(e, &d)
	if g.open && k != g.key {
		if err := g.incomplete(""); err != nil {
			return err
		}
	}
	if !g.open {
		// Logs without attempt numbers (dsh) retry under the same key: a
		// chunk after a finish starts the next attempt. With numbers, the
		// same key after its finish is a broken log.
		if g.closed && k == g.lastKey && k.attempt != 0 {
			return contractError(g.locate(e.Seq), g.header.ID, e.Seq, k, errors.New("a chunk after the call's finish (every model call ends with exactly one finish)"), &g.opts)
		}
		g.open, g.key = true, k
		g.cur = Entry{Kind: KindChunks, Turn: k.turn, Step: k.step, Attempt: k.attempt, Call: call}
		g.asked, g.lastAsk = g.lastAsk, 0
		g.check.reset()
	}
	g.buf = append(g.buf, d.Chunk)
	if err := g.check.add(&g.buf[len(g.buf)-1]); err != nil {
		return contractError(g.locate(e.Seq), g.header.ID, e.Seq, k, err, &g.opts)
	}
	if d.Chunk.IsFinish() {
		g.close()
	}
	return nil
}

// close ends the open call at its finish (or its turn's cancel).
func (g *grouper) close() {
	if n := len(g.buf); g.pool != nil && cap(g.buf) == cap(g.pool)-len(g.pool) {
		// buf is still the pool's room (growing past it would have
		// moved buf, with a larger cap): the entry keeps its window.
		g.cur.Chunks = g.buf[:n:n]
		g.pool = g.pool[:len(g.pool)+n]
		g.buf = g.pool[len(g.pool):]
	} else {
		g.cur.Chunks = slices.Clone(g.buf)
		g.buf = g.buf[:0]
	}
	entries := g.script.Entries
	if g.opts.Attempts == AttemptsActedOn && g.closed && len(entries) > 0 &&
		g.lastKey.turn == g.key.turn && g.lastKey.step == g.key.step {
		// A later attempt of the same step: only the last one is acted on.
		entries[len(entries)-1] = g.cur
		g.script.asked[len(entries)-1] = g.asked
	} else {
		g.script.Entries = append(entries, g.cur)
		g.script.asked = append(g.script.asked, g.asked)
	}
	g.open, g.closed, g.lastKey, g.cur = false, true, g.key, Entry{}
}

// turnEnd decides the open call at a turn/end. The user's cancel ends the
// call's own turn "aborted" and leaves the chunks streamed so far: a hang
// entry replays them and waits for the turn's context to be cancelled, as
// the recording was. Any other end — "interrupted" is what crash repair
// writes — leaves an incomplete call.
func (g *grouper) turnEnd(e *session.Event) error {
	var d session.TurnEndData
	if err := e.Decode(&d); err != nil {
		return g.incomplete(fmt.Sprintf(", and turn/end seq %d cannot be read (%v)", e.Seq, err))
	}
	if d.Turn != g.key.turn {
		return g.incomplete(fmt.Sprintf(", and the next turn/end (seq %d) ends turn %d, not its own", e.Seq, d.Turn))
	}
	if d.Reason.Kind != session.TurnAborted {
		return g.incomplete(fmt.Sprintf(", and its turn ended %q (turn/end seq %d), not %q by a cancel", d.Reason.Kind, e.Seq, session.TurnAborted))
	}
	g.cur.Kind = KindHang
	g.close()
	return nil
}

// incomplete handles the open call when it can no longer get its finish;
// why, if not empty, says what decided it (after "and no finish").
func (g *grouper) incomplete(why string) error {
	k := g.key
	if !g.opts.DropIncomplete {
		fix := " (a crash while recording?) — re-record the scenario, or derive with DropIncomplete (agentsnap derive --drop-incomplete) to drop it"
		if g.opts.advice != "" { // no crash: the runtime under test wrote it so moments before
			fix = " — " + g.opts.advice
		}
		return fmt.Errorf("fakellm: derive %s: %w: session %s, turn %d step %d%s: %d %s and no finish%s%s",
			g.name, ErrIncompleteCall, g.header.ID, k.turn, k.step, attemptSuffix(k.attempt), len(g.buf), plural(len(g.buf), "chunk"), why,
			fix)
	}
	g.script.Dropped = append(g.script.Dropped, Dropped{Turn: k.turn, Step: k.step, Attempt: k.attempt, Chunks: len(g.buf)})
	g.open, g.cur, g.buf = false, Entry{}, g.buf[:0]
	return nil
}

// noteTurnEnd keeps how a turn ended (derivation sees the session's own
// events only, unless IgnoreSeed). A turn/end that cannot be read is an
// error only where it decides a call (turnEnd).
func (g *grouper) noteTurnEnd(e *session.Event) {
	var d session.TurnEndData
	if e.Decode(&d) != nil {
		return
	}
	if g.script.turnEnds == nil {
		g.script.turnEnds = map[int]string{}
	}
	g.script.turnEnds[d.Turn] = d.Reason.Kind
}

func (g *grouper) end() (*Script, error) {
	if g.open {
		if err := g.incomplete(""); err != nil {
			return nil, err
		}
	}
	s := g.script
	return &s, nil
}

func attemptSuffix(a int) string {
	if a == 0 {
		return ""
	}
	return fmt.Sprintf(" attempt %d", a)
}

// baseName is the file name of a script's log, the key a sidecar uses.
func baseName(s *Script) string { return filepath.Base(s.Name) }
