package fakellm

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentsnap/agentsnap/session"
)

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
	skip := seedSkip(h, &opts)
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
				if err := checkSeedEnd(rd.Name(), &e, skip, &opts); err != nil {
					return nil, err
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
	events, err := ownEvents(l, name, &opts)
	if err != nil {
		return nil, err
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
