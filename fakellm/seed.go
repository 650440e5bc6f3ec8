package fakellm

import (
	"fmt"

	"github.com/agentsnap/agentsnap/session"
)

// The seed slice, agentsnap's core guarantee. A fork child's log begins
// with the seed: the completed turns it inherited from its parent, its
// header's seedLength logical events (packed rows expanded), stamped when
// the child was created. Those are the parent's model calls, not the
// child's: a script is derived from the session's own events only,
// events[seedLength:], or the child would replay its parent's answers. A
// seedLength must end the seed right after a turn/end
// ([session.CompletedPrefix]); one that does not is refused, never
// rounded. DeriveLog slices with ownEvents; Derive, which streams, skips
// the seed as it reads (seedSkip, checkSeedEnd). DeriveOptions.IgnoreSeed
// turns the slice off, for regression tests only.

// ownEvents returns the events of l a script is derived from,
// l.Events[SeedLength:] (all of them under IgnoreSeed), after checking
// that the seed is within the log and ends at a turn/end. name names l in
// errors.
func ownEvents(l *session.Log, name string, opts *DeriveOptions) ([]session.Event, error) {
	events := l.Events
	if opts.IgnoreSeed {
		return events, nil
	}
	if n := l.Header.SeedLength; n < 0 || n > len(events) {
		// Located as a boundary error is: the header holds seedLength.
		err := fmt.Errorf("%w: seedLength is %d but the log of session %s holds %d events, and the inherited prefix cannot be longer than the log; if the log was cut short (a hand edit, a partial copy), restore it from version control, else the fork backend stamped a seedLength other than the length of the prefix it handed the child", session.ErrSeedPastEnd, n, l.Header.ID, len(events))
		return nil, seedError(name, l.Path != "", err, opts)
	}
	if err := session.CheckSeedBoundary(events, l.Header.SeedLength); err != nil {
		return nil, seedError(name, l.Path != "", err, opts)
	}
	return events[l.Header.SeedLength:], nil
}

// seedSkip returns how many leading events of a log with header h Derive
// skips as it reads them: its seedLength, none under IgnoreSeed.
func seedSkip(h *session.Header, opts *DeriveOptions) int {
	if opts.IgnoreSeed {
		return 0
	}
	return h.SeedLength
}

// checkSeedEnd checks e, the last of the n events of a streamed log's
// seed, for Derive: the seed must end at a turn/end. A seedLength past the
// log's end is the reader's error (session.ErrSeedPastEnd).
func checkSeedEnd(name string, e *session.Event, n int, opts *DeriveOptions) error {
	if err := session.CheckSeedEnd(e, n); err != nil {
		return seedError(name, true, err, opts)
	}
	return nil
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
