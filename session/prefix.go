package session

import (
	"errors"
	"fmt"
)

// CompletedPrefix returns the length of the balanced completed-turn prefix
// of events: every event up to and including the last turn/end. A fork child
// inherits exactly this prefix, so every tool call in it has its result and
// no turn is half done. With no completed turn it returns 0 (a fork on the
// parent's first turn inherits nothing).
func CompletedPrefix(events []Event) int {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == TypeTurnEnd {
			return i + 1
		}
	}
	return 0
}

// ErrSeedBoundary reports a seedLength that does not end the inherited
// prefix right after a turn/end, so the seed would cut a turn — often a
// model call — in two.
var ErrSeedBoundary = errors.New("seedLength does not fall between turns")

// CheckSeedBoundary checks that a log's seedLength is a completed-turn
// prefix of its events: 0, or a length whose last event is a turn/end, as
// [CompletedPrefix] computes it. Otherwise the fork child's own events would
// start inside an inherited turn — e.g. mid-answer — and derivation would
// replay half a model call. The error wraps [ErrSeedBoundary], or
// [ErrSeedPastEnd] when seedLength is outside events. It says what the
// backend must do; what mends the log (re-recording it) is the caller's to
// say.
func CheckSeedBoundary(events []Event, seedLength int) error {
	if seedLength == 0 {
		return nil
	}
	if seedLength < 0 || seedLength > len(events) {
		return fmt.Errorf("%w: seedLength is %d but the log holds %d events", ErrSeedPastEnd, seedLength, len(events))
	}
	return CheckSeedEnd(&events[seedLength-1], seedLength)
}

// CheckSeedEnd is [CheckSeedBoundary] for a caller that streams the log
// (a [Reader]) instead of holding it: last is the event at index
// seedLength-1, the last inherited one, and seedLength must be 1 or more.
func CheckSeedEnd(last *Event, seedLength int) error {
	if last.Type == TypeTurnEnd {
		return nil
	}
	return fmt.Errorf("%w: seedLength %d ends the seed at seq %d (%s), not at a turn/end, so the child's own events would start inside an inherited turn; the fork backend must stamp seedLength at the end of the parent's last completed turn (session.CompletedPrefix)",
		ErrSeedBoundary, seedLength, last.Seq, last.Type)
}
