package fakellm

import "errors"

// Errors of derivation, loading and replay, for errors.Is. The errors the
// package returns wrap them with the session, its lineage and what to do.
var (
	// ErrIncompleteCall: a recorded model call has no finish chunk.
	ErrIncompleteCall = errors.New("incomplete model call")
	// ErrUnrecordedSession: a live session the recording never had.
	ErrUnrecordedSession = errors.New("unrecorded session")
	// ErrScriptExhausted: a session asked for more calls than were recorded.
	ErrScriptExhausted = errors.New("script exhausted")
	// ErrPathMismatch: a live call is not where the recording's next call was.
	ErrPathMismatch = errors.New("the agent took another path")
	// ErrNotConsumed: at teardown, recorded calls were never replayed.
	ErrNotConsumed = errors.New("recording not consumed")
	// ErrBadOverride: a replay.override.json sidecar is invalid.
	ErrBadOverride = errors.New("bad replay override")
	// ErrBadRecording: the logs do not form one recorded session tree.
	ErrBadRecording = errors.New("bad recording")
)
