package agentsnap

import (
	"context"
	"fmt"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/scenario"
)

// Runtime is the agent under test.
//
// Run runs env.Scenario's prompts, in order, as the user turns of one new
// root session (Env.EachPrompt applies the scenario's turn timeout). Every
// model call goes through env.Driver and carries the calling session's
// identity and lineage (llm.Request.Session); every session — the root and
// each subagent — writes its log to env.Store, following the session-log
// contract (see CONTRACT.md and package journal, which implements it).
//
// Run returns an error only when the run could not go on: a model call
// that could not start (the replay has no such session, the playbook no
// such answer), a store that failed. A turn that ends because the model
// failed or the turn timed out is a recorded outcome, not an error.
//
// The harness calls Run once per replay and the recorder once per
// recording, each time with a fresh Env; Run must not keep state between
// calls that changes what it does.
type Runtime interface {
	Run(ctx context.Context, env *Env) error
}

// NotMended is implemented by an error Run returns, or wraps (errors.As
// finds it), that re-recording the scenario does not mend: the run fails
// the same way while recording — the agent calls an endpoint agentsnap does
// not serve, say. Its message says what to do instead, and a replay's
// verdict that holds one ends with that, not with the command that
// re-records. A runtime's own configuration errors may implement it too.
type NotMended interface {
	error
	// NotMendedByRecording marks the error; it does nothing.
	NotMendedByRecording()
}

// RuntimeFunc adapts a function to the Runtime interface.
type RuntimeFunc func(ctx context.Context, env *Env) error

// Run calls f.
func (f RuntimeFunc) Run(ctx context.Context, env *Env) error { return f(ctx, env) }

// Named is implemented by a runtime that names itself. A recording stores
// the name in scenario.json (recorded.runtime), and a replay with a
// runtime of another name is refused, saying which one recorded it. A
// runtime without a name is not checked.
type Named interface {
	Name() string
}

// Validator is implemented by a runtime that checks a scenario's settings
// for it — the agent member above all — when the fixture is loaded, before
// anything runs. Warnings (a misspelled setting that is ignored, say) are
// shown; an error stops the replay or the recording.
type Validator interface {
	Validate(sc *scenario.Scenario) (warnings []string, err error)
}

// ReferenceName is the name agentsnap's reference runtime (package agent)
// records in scenario.json: the one runtime the agentsnap CLI records and
// checks. A fixture recorded by any other runtime is recorded and checked
// from the tests that use it.
const ReferenceName = "reference"

// NameOf returns rt's name, or "" when it does not implement Named.
func NameOf(rt Runtime) string {
	if n, ok := rt.(Named); ok {
		return n.Name()
	}
	return ""
}

// Validate runs rt's scenario check when it has one.
func Validate(rt Runtime, sc *scenario.Scenario) ([]string, error) {
	if v, ok := rt.(Validator); ok {
		return v.Validate(sc)
	}
	return nil, nil
}

// Epoch is the fixed time of replays and of playbook recordings: times are
// normalised away when logs are compared, and a fixed clock keeps a log's
// bytes the same from run to run, so re-recording an unchanged playbook
// changes no file.
var Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Env is what a runtime is handed for one run of one scenario: the model,
// where the session logs go, the run's time, and the scenario itself.
// Every field is set but WithTimeout, which may be nil, and ToolReplay,
// which is nil while recording (but for an only-changed recording).
type Env struct {
	// Scenario is the scenario.json of the fixture: its prompts, the
	// agent settings as raw JSON (Scenario.Agent) and the shared settings.
	Scenario *scenario.Scenario
	// Dir is the fixture folder.
	Dir string

	// Driver is the model: the replay driver (fakellm), a playbook, or a
	// live OpenAI-compatible endpoint while recording. It is safe for
	// concurrent use.
	Driver llm.Driver
	// Provider and Model are the names to record in each request/header
	// (and to send as the model name). A replay hands over the recording's
	// values, so requests compare equal.
	Provider, Model string

	// ToolReplay serves recorded tools in a replay — the replay driver,
	// which answers each from the calling session's recorded events — and
	// is nil while recording, when the tools run and their results are
	// recorded. An only-changed recording sets it too: a session that
	// still replays its recorded model calls gets its recorded tool
	// outputs and MCP answers, and for a session recorded anew it answers
	// llm.ErrRunTool, so the tool runs; tell a recording by Recording,
	// not by a nil ToolReplay. Hand it on to journal.Config.ToolReplay
	// (Journal.Tool) and to package wire's MCP support, which do both.
	ToolReplay llm.ToolReplay

	// Store receives every session log. Do not close it.
	Store persistence.Store
	// Clock stamps createdAt and event times. Replays and playbook
	// recordings fix it, so logs are byte-stable.
	Clock func() time.Time
	// WithTimeout makes a timeout in the run's time; nil means
	// context.WithTimeout. Make every timeout of the runtime's own through
	// it (Env.Timeout does), as EachPrompt does for turnTimeout. While
	// recording it is real time. In a replay it is the replay driver's
	// virtual clock: a timeout fires once the replay cannot go on without
	// it — every call recorded before it answered, every call in flight
	// waiting for its context (a recorded hang or abort) — so a recorded
	// hang ends at once, whatever the timeout's length, in the order it
	// did. Its context's Err is then context.DeadlineExceeded, as in real
	// time; its Deadline is none of its own.
	WithTimeout func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
	// Cwd is the working folder to record in headers.
	Cwd string

	// Recording is true while recording (live or playbook) and false in a
	// replay. Live is true when the model is a live endpoint: a runtime may
	// back off before retrying a failed call then, and must not in replay.
	Recording, Live bool

	// Logf receives notes worth showing the user (the test's log under a
	// test, stderr under the CLI).
	Logf func(format string, args ...any)
}

// Timeout returns a context that ends after d in the run's time — real
// while recording, virtual in a replay (see WithTimeout) — and its cancel.
func (e *Env) Timeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if e.WithTimeout == nil {
		return context.WithTimeout(ctx, d)
	}
	return e.WithTimeout(ctx, d)
}

// EachPrompt calls turn for each prompt of the scenario, in order, with i
// counting from 0. Each call gets a context bounded by the scenario's
// turnTimeout, when set, in the run's time (Env.Timeout). It stops at the
// first error turn returns, and when ctx ends.
func (e *Env) EachPrompt(ctx context.Context, turn func(ctx context.Context, i int, prompt string) error) error {
	for i, prompt := range e.Scenario.Prompts {
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if d := time.Duration(e.Scenario.TurnTimeout); d > 0 {
			tctx, cancel = e.Timeout(ctx, d)
		}
		err := turn(tctx, i, prompt)
		cancel()
		if err != nil {
			return fmt.Errorf("prompt %d: %w", i+1, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
