package fakellm

import (
	"fmt"
	"path/filepath"

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

// callKey identifies one model call of a session.
type callKey struct{ turn, step, attempt int }

// baseName is the file name of a script's log, the key a sidecar uses.
func baseName(s *Script) string { return filepath.Base(s.Name) }
