package fakellm

import (
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
}

// Script is the replay script of one recorded session.
type Script struct {
	Name    string         // where the log came from (its path), for messages
	Header  session.Header // the recorded session's header
	Entries []Entry        // one per recorded model call, in order
	Dropped []Dropped      // incomplete calls dropped by DropIncomplete
	// Torn is a torn last line (a crash mid-write) that DropIncomplete let
	// derivation skip; without it such a log is refused.
	Torn *session.TornLine
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
	skip := h.SeedLength
	if opts.IgnoreSeed {
		skip = 0
	}
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A *session.ParseError, location first; a seedLength past
			// the end surfaces here too, as session.ErrSeedPastEnd.
			return nil, err
		}
		if skip > 0 {
			skip--
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
// events, l.Events[SeedLength:].
func DeriveLog(l *session.Log, opts DeriveOptions) (*Script, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	name := logName(l)
	events := l.Events
	if !opts.IgnoreSeed {
		if n := l.Header.SeedLength; n < 0 || n > len(events) {
			return nil, fmt.Errorf("fakellm: derive %s: %w: seedLength is %d but the log holds %d events", name, session.ErrSeedPastEnd, n, len(events))
		}
		events = events[l.Header.SeedLength:]
	}
	if err := tornTail(name, l.Torn, opts); err != nil {
		return nil, err
	}
	g := newGrouper(name, &l.Header, opts)
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
// assistant/chunk events of one (turn, step, attempt), closed by a finish.
type grouper struct {
	name   string
	header *session.Header
	opts   DeriveOptions
	script Script

	open    bool // a call has chunks but no finish yet
	key     callKey
	cur     Entry           // the open call; its chunks gather in buf
	buf     []session.Chunk // reused: each entry gets one exact-size copy
	closed  bool            // the last call was closed by its finish
	lastKey callKey
}

func newGrouper(name string, h *session.Header, opts DeriveOptions) *grouper {
	return &grouper{name: name, header: h, opts: opts, script: Script{Name: name, Header: *h}}
}

func (g *grouper) add(e *session.Event) error {
	if e.Type != session.TypeAssistantChunk {
		return nil // other events, known or not, say nothing about the calls
	}
	d, err := session.DecodeChunkData(e.Data)
	if err != nil {
		return fmt.Errorf("fakellm: derive %s: session %s: assistant/chunk seq %d: %w", g.name, g.header.ID, e.Seq, err)
	}
	k := callKey{d.Turn, d.Step, d.Attempt}
	if g.open && k != g.key {
		if err := g.incomplete(); err != nil {
			return err
		}
	}
	if !g.open {
		// Logs without attempt numbers (dsh) retry under the same key: a
		// chunk after a finish starts the next attempt. With numbers, the
		// same key after its finish is a broken log.
		if g.closed && k == g.lastKey && k.attempt != 0 {
			return fmt.Errorf("fakellm: derive %s: session %s: assistant/chunk seq %d: a chunk after the finish of turn %d step %d attempt %d (every model call ends with exactly one finish)", g.name, g.header.ID, e.Seq, k.turn, k.step, k.attempt)
		}
		g.open, g.key = true, k
		g.cur = Entry{Kind: KindChunks, Turn: k.turn, Step: k.step, Attempt: k.attempt}
	}
	g.buf = append(g.buf, d.Chunk)
	if d.Chunk.IsFinish() {
		g.close()
	}
	return nil
}

// close ends the open call at its finish.
func (g *grouper) close() {
	g.cur.Chunks = slices.Clone(g.buf)
	g.buf = g.buf[:0]
	entries := g.script.Entries
	if g.opts.Attempts == AttemptsActedOn && g.closed && len(entries) > 0 &&
		g.lastKey.turn == g.key.turn && g.lastKey.step == g.key.step {
		// A later attempt of the same step: only the last one is acted on.
		entries[len(entries)-1] = g.cur
	} else {
		g.script.Entries = append(entries, g.cur)
	}
	g.open, g.closed, g.lastKey, g.cur = false, true, g.key, Entry{}
}

// incomplete handles the open call when it can no longer get its finish.
func (g *grouper) incomplete() error {
	k := g.key
	if !g.opts.DropIncomplete {
		return fmt.Errorf("fakellm: derive %s: %w: session %s, turn %d step %d%s: %d %s and no finish (a crash while recording?) — re-record the scenario, or derive with DropIncomplete (agentsnap derive --drop-incomplete) to drop it",
			g.name, ErrIncompleteCall, g.header.ID, k.turn, k.step, attemptSuffix(k.attempt), len(g.buf), plural(len(g.buf), "chunk"))
	}
	g.script.Dropped = append(g.script.Dropped, Dropped{Turn: k.turn, Step: k.step, Attempt: k.attempt, Chunks: len(g.buf)})
	g.open, g.cur, g.buf = false, Entry{}, g.buf[:0]
	return nil
}

func (g *grouper) end() (*Script, error) {
	if g.open {
		if err := g.incomplete(); err != nil {
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
