package loop

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Config configures a Runtime. Driver and Store are required.
type Config struct {
	Driver llm.Driver        // the model
	Store  persistence.Store // where every session log goes

	// Provider and Model are recorded in each request/header event and sent
	// in each request. A replay must use the recording's values, or every
	// request shows as drifted.
	Provider string
	Model    string

	System string    // system prompt of every session
	Preset string    // agentPreset recorded in headers
	Tools  *Registry // tools offered to the model, subagent tools included
	Cwd    string    // recorded in headers

	// ToolReplay serves the recorded tools (RecordedTool) in a replay: the
	// Env's ToolReplay under agentsnap. Nil runs them and records their
	// results.
	ToolReplay llm.ToolReplay

	// MaxDepth is the deepest delegation allowed: a session at this depth
	// gets an error tool result when it calls a subagent tool. Default 2.
	MaxDepth int
	// MaxSteps bounds the steps of one turn (a model that never stops
	// calling tools). Default 32.
	MaxSteps int
	// Serial runs subagent calls of one step one after another instead of
	// concurrently.
	Serial bool

	// OnTurn, if set, is called when any session's turn starts and ends
	// (progress reporting). Subagents call it from their own goroutines.
	OnTurn func(TurnEvent)

	Retry  RetryPolicy
	Clock  func() time.Time // default time.Now
	IDs    IDSource         // default random UUIDs
	Logger *slog.Logger     // default discards
}

// TurnEvent reports a turn starting (Ended false) or ending.
type TurnEvent struct {
	Session llm.SessionRef
	Turn    int
	Ended   bool
	Reason  session.EndReason // when Ended
}

// RetryPolicy retries a step whose model call ended in a retryable error
// finish. Every attempt is recorded in the log with its attempt number.
type RetryPolicy struct {
	MaxAttempts int                    // attempts per step including the first; default 1 (no retry)
	Backoff     time.Duration          // delay before attempt n is Backoff * 2^(n-2); 0 retries at once
	Retryable   func(code string) bool // default: DefaultRetryable
}

// DefaultRetryable reports whether an error finish code is worth retrying:
// rate limits, server errors, dropped connections and empty responses.
func DefaultRetryable(code string) bool {
	switch code {
	case "RATE_LIMIT", "SERVER", "TRANSPORT", "TIMEOUT", "EMPTY_RESPONSE":
		return true
	}
	return false
}

// IDSource names sessions; see journal.IDs.
type IDSource = journal.IDs

// LineageIDs is the deterministic IDSource: roots are named root, root-2,
// ... in creation order; a child is named parent/callID (parent/callID#n
// for the n-th child of a call id the parent reuses in a later step). Since
// a child's name depends only on its lineage, concurrent children get the
// same names under any scheduling.
func LineageIDs(root string) IDSource { return session.NewLineageIDs(root) }

type randomIDs struct{}

func (randomIDs) Root() string             { return randomID() }
func (randomIDs) Child(_, _ string) string { return randomID() }

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// FixedClock returns a clock that always reads t.
func FixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Driver == nil {
		return out, errors.New("agent: Config.Driver is nil; give the runtime a model driver (llm/openai, a playbook or fakellm)")
	}
	if out.Store == nil {
		return out, errors.New("agent: Config.Store is nil; give the runtime a persistence.Store (persistence/memory for tests)")
	}
	if out.Tools == nil {
		out.Tools = NewRegistry()
	}
	if out.MaxDepth == 0 {
		out.MaxDepth = 2
	}
	if out.MaxSteps == 0 {
		out.MaxSteps = 32
	}
	if out.Retry.MaxAttempts < 1 {
		out.Retry.MaxAttempts = 1
	}
	if out.Retry.Retryable == nil {
		out.Retry.Retryable = DefaultRetryable
	}
	if out.Clock == nil {
		out.Clock = time.Now
	}
	if out.IDs == nil {
		out.IDs = randomIDs{}
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out, nil
}
