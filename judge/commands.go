package judge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
)

// Hints says where the user is, so that every command a failure message
// ends with works there: from the root of the user's module, with the
// agentsnap CLI as a Go tool (go get -tool
// github.com/agentsnap/agentsnap/cmd/agentsnap), or through the user's own
// test binary — and for the runtime and the source (a playbook, a live
// model) that recorded the fixture. The zero value is the CLI's.
type Hints struct {
	// Test, set by a test adapter (package harness), returns the command
	// that runs the test replaying fx again with extra arguments, such as
	// go test ./pkg -run '^TestScenarios$/^fork/x$' -update. Nil outside
	// a test.
	Test func(fx *fixture.Fixture, args string) string
	// Record, when set, re-records a fixture (agentsnap serve, whose agent
	// runs in another process); a golden is then updated by accepting the
	// proposal the replay writes (agentsnap review).
	Record func(fx *fixture.Fixture) string
	// Fresh, set where every fixture is recorded afresh with the runtime
	// that then replays it (package conformance), says what to look at in
	// that runtime. A failed replay is then the runtime's bug, not a stale
	// fixture's: messages, a refusal of a recorded log's included, end with
	// Fresh instead of a command that re-records the fixture, updates its
	// golden or runs the CLI.
	Fresh string
}

// commands builds the commands of one replay's messages from its Hints.
type commands struct {
	Hints
	runtime string // the name of the runtime under test
	cwd     string // the working folder, when the replay knows it already ("": ask)
}

func (opts Options) commands() commands {
	return commands{Hints: opts.Hints, runtime: agentsnap.NameOf(opts.Runtime)}
}

// cli reports whether the user runs the CLI.
func (c commands) cli() bool { return c.Test == nil && c.Record == nil && c.Fresh == "" }

// redo is what a message about a recording the replay does not follow
// ends with: the command that re-records fx, or Fresh.
func (c commands) redo(fx *fixture.Fixture) string {
	if c.Fresh != "" {
		return c.Fresh
	}
	return "re-record with: " + c.record(fx)
}

// orRedo is redo as the end of a sentence that said what else to do:
// ", or re-record with: CMD", or "; " and Fresh.
func (c commands) orRedo(fx *fixture.Fixture) string {
	if c.Fresh != "" {
		return "; " + c.Fresh
	}
	return ", or " + c.redo(fx)
}

// byCLI reports whether the agentsnap CLI records fx: it runs the
// reference runtime only.
func (c commands) byCLI(fx *fixture.Fixture) bool {
	return c.recordedBy(fx) == agentsnap.ReferenceName
}

// recordedBy is the name of the runtime that recorded fx, else the
// runtime under test; "" for a runtime without a name, which is a user's
// (agentsnap's reference runtime has one).
func (c commands) recordedBy(fx *fixture.Fixture) string {
	if rec := fx.Scenario.Recorded; rec != nil && rec.Runtime != "" {
		return rec.Runtime
	}
	if unnamedFromTest(fx) {
		return ""
	}
	return c.runtime
}

// byTests is recorder.ByTests, scenario.json's recorded.by of a recording
// made from a user's tests (the recorder imports this package).
const byTests = "agentsnap (go test)"

// unnamedFromTest reports whether a user's test recorded fx with a
// runtime that has no name (not agentsnap.Named): whatever runtime
// replays it, the reference runtime did not record it.
func unnamedFromTest(fx *fixture.Fixture) bool {
	rec := fx.Scenario.Recorded
	return rec != nil && rec.Runtime == "" && rec.By == byTests
}

// tool returns the agentsnap CLI command with args for the fixture folder
// (or folder of fixtures) dir: "go tool agentsnap record fixtures/fork/x".
func (c commands) tool(args, dir string) string {
	return "go tool agentsnap " + args + " " + c.dir(dir)
}

// dir returns fixture folder dir relative to the module root, when the
// process runs inside a module; else dir as given.
func (c commands) dir(dir string) string {
	if rel, ok := fromModuleRootAt(c.cwd, dir); ok {
		return rel
	}
	return dir
}

// record returns the command that re-records fx: the CLI's for a fixture
// of the reference runtime, the user's test with -record for any other
// runtime (the CLI cannot load it), serve's for an agent in another
// process — with what a live recording needs in front of it.
func (c commands) record(fx *fixture.Fixture) string { return c.recordWith(fx, false) }

// recordOnlyChanged returns the command that re-records only what changed
// in fx, a live recording — record's with --only-changed (the CLI's) or
// -record-only-changed (a test's) — or "" where it is not that command's
// to say (Options.Record's own) or nothing is saved by it (a playbook's
// answers cost nothing).
func (c commands) recordOnlyChanged(fx *fixture.Fixture) string {
	if c.Record != nil || !recordedLive(fx) {
		return ""
	}
	return c.recordWith(fx, true)
}

// recordedLive reports whether fx was recorded from a live model.
func recordedLive(fx *fixture.Fixture) bool {
	rec := fx.Scenario.Recorded
	return rec != nil && rec.Provider != "" && rec.Provider != "playbook"
}

func (c commands) recordWith(fx *fixture.Fixture, onlyChanged bool) string {
	live := recordedLive(fx)
	switch {
	case c.Record != nil:
		return c.Record(fx)
	case c.byCLI(fx):
		cmd := c.tool("record", fx.Dir)
		if live {
			cmd = liveVars + " " + cmd + " --live --base-url URL --model " + shellQuote(fx.Scenario.Recorded.Model)
			if api := liveAPI(fx); api != "" {
				cmd += " --api " + api
			}
		}
		if onlyChanged {
			cmd += " --only-changed"
		}
		return cmd
	}
	args := "-record=" + shellQuote("^"+regexp.QuoteMeta(fx.Name)+"$")
	if onlyChanged {
		args += " -record-only-changed"
	}
	var cmd string
	if c.Test != nil {
		cmd = c.Test(fx, args)
	} else if name := c.recordedBy(fx); name != "" {
		cmd = fmt.Sprintf("go test ./... %s (from the tests that replay it with the runtime %q: the CLI runs only agentsnap's reference runtime)", args, name)
	} else {
		cmd = fmt.Sprintf("go test ./... %s (from the test that recorded it, with a runtime without a name: the CLI runs only agentsnap's reference runtime)", args)
	}
	if live {
		vars := liveVars + " AGENTSNAP_BASE_URL=URL AGENTSNAP_MODEL=" + shellQuote(fx.Scenario.Recorded.Model)
		if api := liveAPI(fx); api != "" {
			vars += " AGENTSNAP_API=" + api
		}
		cmd = vars + " " + cmd
	}
	return cmd
}

// WithRecordCommand is err, which RecordMends says a recording mends, its
// message ending in cmd, the command that records the scenario: "; record
// it with: CMD" for a scenario never recorded (whose message says "record
// it" already), "; re-record it with: CMD" for any other.
func WithRecordCommand(err error, cmd string) error {
	msg := err.Error()
	if errors.Is(err, fixture.ErrNeverRecorded) {
		if m, ok := strings.CutSuffix(msg, "; record it"); ok {
			return advised{err, m + "; record it with: " + cmd}
		}
	}
	return advised{err, msg + "; re-record it with: " + cmd}
}

// advised is an error with its message rewritten to end in a command.
type advised struct {
	error
	msg string
}

func (e advised) Error() string { return e.msg }
func (e advised) Unwrap() error { return e.error }

// RecordMends reports whether re-recording the scenario in dir mends err,
// the error fixture.Load or Replay gave for it. A recording rewrites the
// logs and the golden from scenario.json, so it mends a log that is
// damaged, missing or extra, or that the replay cannot derive scripts
// from; not scenario.json itself (a recording reads it), nor
// replay.override.json (a recording leaves it as it is), nor a file this
// user cannot read, nor a scenario recorded with another runtime than the
// replay's, nor a recorded hang that needs a turnTimeout, nor anything
// outside the fixture (a replay out of time, a setting). Where it is
// false the message says what to do.
func RecordMends(dir string, err error) bool {
	var rec inRecording
	var not notMended
	switch {
	case errors.Is(err, scenario.ErrInvalid), errors.Is(err, fakellm.ErrBadOverride),
		errors.Is(err, fs.ErrPermission), errors.As(err, &not):
		return false
	case !errors.Is(err, fixture.ErrFixture) && !errors.As(err, &rec):
		return false
	}
	_, serr := scenario.Load(dir)
	return serr == nil
}

// inRecording marks a Replay error that lies in the recorded logs: the
// scripts cannot be derived from them.
type inRecording struct{ error }

func (e inRecording) Unwrap() error { return e.error }

// notMended marks a Replay error about the fixture that re-recording it
// as it is would not mend, and whose message says what would: another
// runtime recorded it, a recorded hang or abort needs scenario.json's
// turnTimeout, the number of schedules asked for is out of range.
type notMended struct{ error }

func (e notMended) Unwrap() error { return e.error }

// liveAPI is the model API a live recording of fx called every request in,
// when it named one: its provider is the API's name. A Chat Completions
// recording ("openai-compatible") and one that called each request in the
// agent's own API ("live") need none.
func liveAPI(fx *fixture.Fixture) string {
	switch p := fx.Scenario.Recorded.Provider; p {
	case "", "playbook", "openai-compatible", "live":
		return ""
	default:
		return shellQuote(p)
	}
}

// liveVars names the key variable a live recording reads.
const liveVars = "AGENTSNAP_API_KEY=..."

// update returns the command that rewrites fx's golden from a replay.
func (c commands) update(fx *fixture.Fixture) string {
	switch {
	case c.Record != nil:
		return c.tool("review --accept", fx.Dir) // serve's replay writes the proposal
	case c.Test != nil:
		return c.Test(fx, "-update")
	}
	return c.tool("check --update", fx.Dir)
}

// schedule returns the command that replays fx under one schedule.
func (c commands) schedule(fx *fixture.Fixture, seed int64) string {
	if c.Test != nil {
		return c.Test(fx, fmt.Sprintf("-schedule-seed=%d", seed))
	}
	return c.tool(fmt.Sprintf("check --schedule-seed=%d", seed), fx.Dir)
}

// fromModuleRoot returns path relative to the root of the module the
// process runs in; false outside a module, or for a path outside it.
func fromModuleRoot(path string) (string, bool) { return fromModuleRootAt("", path) }

// fromModuleRootAt is fromModuleRoot with cwd the working folder ("": ask
// the system), so a replay that has it asks no more.
func fromModuleRootAt(cwd, path string) (string, bool) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return "", false
		}
	}
	root := moduleRootAt(cwd)
	abs := filepath.Clean(path)
	if !filepath.IsAbs(path) {
		abs = filepath.Join(cwd, path) // filepath.Abs, without asking for cwd again
	}
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return rel, true
}

// Package returns the test's package folder relative to the module root,
// as the go command takes it ("./suites/fork"), for a test adapter's Hints.
func Package() string {
	rel, ok := fromModuleRoot(".")
	if !ok || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

// shellSafe matches the words a POSIX shell takes as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@-]+$`)

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string { return shellQuote(s) }

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// moduleRootAt returns the folder of the go.mod above the working folder
// dir. The answer is kept per working folder: every replay asks it for its
// messages' commands, and a search up the tree costs a stat per level.
func moduleRootAt(dir string) string {
	if root, ok := moduleRoots.Load(dir); ok {
		return root.(string)
	}
	root := findModuleRoot(dir)
	moduleRoots.Store(dir, root)
	return root
}

var moduleRoots sync.Map // working folder -> moduleRoot's answer

func findModuleRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
