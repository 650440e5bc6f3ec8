package fakellm

import "errors"

// Errors of derivation, loading and replay, for errors.Is. The errors the
// package returns wrap them with the session, its lineage and what to do.
var (
	// ErrTornLog marks a log whose last line is incomplete (a crash
	// mid-write), refused unless DropIncomplete.
	ErrTornLog = errors.New("torn log")
	// ErrIncompleteCall marks a recorded model call without a finish chunk.
	ErrIncompleteCall = errors.New("incomplete model call")
	// ErrUnrecordedSession marks a live session the recording never had.
	ErrUnrecordedSession = errors.New("unrecorded session")
	// ErrScriptExhausted marks a call beyond the last recorded one.
	ErrScriptExhausted = errors.New("script exhausted")
	// ErrPathMismatch marks a live call that is not where the recording's
	// next call was (turn and step, or spawn versus fork).
	ErrPathMismatch = errors.New("path mismatch")
	// ErrNotConsumed marks recorded calls never replayed, found by Check.
	ErrNotConsumed = errors.New("recording not consumed")
	// ErrBadOverride marks an invalid replay.override.json sidecar.
	ErrBadOverride = errors.New("bad replay override")
	// ErrUnrecordedTool marks a recorded tool's call, or an MCP request,
	// that the recording holds no answer to.
	ErrUnrecordedTool = errors.New("unrecorded tool call")
	// ErrToolDrift marks a recorded tool's call whose tool name or
	// arguments differ from the recording's call with the same id.
	ErrToolDrift = errors.New("tool drift")
	// ErrCountDrift marks a token count request (count/tokens) of a
	// session that none of its recorded counts not yet served was made
	// for: the request changed, or the recording never counted it.
	ErrCountDrift = errors.New("token count drift")
	// ErrBadRecording marks logs that do not form one recorded session tree.
	ErrBadRecording = errors.New("bad recording")
)

// advised returns err with the driver's advice after its message, which
// ends where the advice goes. The advice is made when the message is read,
// not here: errors are made under d.mu, and the record command may read
// every log of the fixture (agentsnap serve's), which would hold up every
// other session's calls while one session's failing call waits for it.
func (d *Driver) advised(err error) error { return &advisedError{err: err, advice: d.advice} }

// advisedError is an error of the driver's that ends with its advice.
type advisedError struct {
	err    error
	advice func() string
}

func (e *advisedError) Error() string { return e.err.Error() + e.advice() }

func (e *advisedError) Unwrap() error { return e.err }
