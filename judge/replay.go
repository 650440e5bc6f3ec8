package judge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/readfile"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Options tune a replay. Runtime is required.
type Options struct {
	// Runtime is the agent under test: agent.Reference for agentsnap's
	// own fixtures, yours for yours. There is no default, so a replay never
	// runs another agent than the one its caller means.
	Runtime agentsnap.Runtime
	// Store returns the store the replay persists through (default: a new
	// in-memory store). The replay closes it. The store must hold no
	// session yet: a replay through one an earlier run filled is refused.
	Store func() (persistence.Store, error)
	// Deriver replaces script derivation; the regression suite passes a
	// broken one to prove what the seed slice prevents.
	Deriver fakellm.Deriver
	// Logf receives the replay driver's notes and the scenario's warnings.
	Logf func(format string, args ...any)
	// Hints says where the user is, for the commands messages end with;
	// the zero value is the CLI's.
	Hints Hints
	// Schedules, when above 1, replays the scenario under that many seeded
	// schedules, seeds from ScheduleSeed (0 means 1) on: the Outcome is
	// schedule 0's, and a schedule that does not match the recording or
	// writes other bytes is one of its errors (see SearchSchedules). 0
	// takes scenario.json's schedules. ScheduleSeed without Schedules
	// replays under that one schedule.
	Schedules    int
	ScheduleSeed int64
	// OnlySeed, when set, replays under that one schedule whatever else
	// asks for schedules: a test's -schedule-seed, the command a failed
	// search prints.
	OnlySeed int64
	// Once replays the scenario one time, whatever Schedules and
	// scenario.json's schedules say: an agent in another process (agentsnap
	// serve) runs once per serve, so there is no schedule to search.
	Once bool

	schedule *int64    // set by a schedule search for its own replays
	prepared *prepared // the first replay's, for a search's others
}

// ErrNoRuntime is returned by Replay without Options.Runtime.
var ErrNoRuntime = errors.New("judge: Options.Runtime is nil: pass the runtime under test (agent.Reference for agentsnap's own fixtures)")

// ErrUnfinished is wrapped by Replay's error when the replay did not end
// before its context did (the deadline of agentsnap check --timeout, a
// test's timeout); the message says what the replay waits for.
var ErrUnfinished = errors.New("the replay did not finish")

// Replay runs the fixture's prompts through the runtime under test against
// a fakellm driver built from the fixture's logs, then compares every
// replayed log with its fixture and renders the transcript. It returns an
// error only when the replay could not run at all (a fixture recorded by
// another runtime, settings the runtime refuses, a replay that would wait
// forever); mismatches are in the Outcome.
//
// The replay runs in virtual time (Env.WithTimeout is the driver's clock):
// a recorded hang's turnTimeout fires as soon as the replay cannot go on
// without it, not after its real length. When ctx ends first — its
// deadline passed — Replay returns an error wrapping ErrUnfinished and
// ctx's error that names what the replay waits for: a call waiting for a
// cancel no timeout brings, a recorded call never made.
//
// A fixture opened without its logs (fixture.Open) is replayed holding none
// of them while the runtime runs — each script is derived as its file is
// read, keeping a digest of the log — and judged holding few: a session
// whose replay has the digest of its recorded log matches it, and only the
// logs of the others are read again, each compared with its replay and let
// go (fx.Logs stays nil). With the default store, each replayed session's
// digest is taken as the runtime writes it, so the verdict after the run
// digests no session's events again. What a large scenario needs (agentsnap serve).
// The recording judged is the one read when the replay began: a log read
// again that changed since is an error.
func Replay(ctx context.Context, fx *fixture.Fixture, opts Options) (*Outcome, error) {
	rt, cmds := opts.Runtime, opts.commands()
	if rt == nil {
		return nil, ErrNoRuntime
	}
	goldens.checked(fx.Golden)
	prep := opts.prepared
	warnings, err := admitted(fx, rt, prep, &cmds)
	if err != nil {
		return nil, err
	}
	sched, err := opts.scheduling(fx)
	if err != nil {
		return nil, err
	}
	// What is wrong with the fixture or the options is said first.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("judge: %s: %w: %w before it began", fx.Name, ErrUnfinished, err)
	}
	if prep == nil {
		if prep, err = prepare(fx, opts, cmds); err != nil {
			return nil, err
		}
		prep.warnings = warnings
		opts.prepared = prep // the schedules a search replays share it
	}
	drv, err := prep.driver(fx, sched, opts.Logf)
	if err != nil {
		return nil, err
	}
	store, err := openStore(ctx, fx, opts.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()

	o := &Outcome{Fixture: fx, Warnings: append(slices.Clip(fx.Scenario.Warnings), prep.warnings...), driver: drv, commands: cmds, prepared: prep, secrets: secret.FromContext(ctx)}
	store = o.watched(store, opts.Store == nil)
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	for _, w := range o.Warnings {
		logf("%s", w)
	}
	env := replayEnv(fx, drv, store, prep.cwd, logf)
	runErr, waiting, late := run(ctx, rt, env, drv)
	if late {
		return nil, unfinished(fx, ctx.Err(), waiting, cmds)
	}
	if runErr != nil {
		o.RunErrors = append(o.RunErrors, runErr)
	}
	if err := o.judge(ctx, store); err != nil {
		return nil, err
	}
	if opts.schedule == nil {
		o.Stale = stalePlaybook(fx, cmds) // a search's own replays share schedule 0's
	}
	if err := sched.search(ctx, fx, opts, o); err != nil {
		return nil, err
	}
	return o, nil
}

// admitted sets the working folder of cmds — asked once per replay, a
// search's replays taking their first's — and returns, for a first
// replay, the runtime's warnings about the scenario (admit).
func admitted(fx *fixture.Fixture, rt agentsnap.Runtime, prep *prepared, cmds *commands) ([]string, error) {
	if prep != nil {
		cmds.cwd = prep.cwd
		return nil, nil
	}
	cmds.cwd, _ = os.Getwd() // the working folder, and every command's folder
	return admit(fx, rt, *cmds)
}

// admit returns the runtime's warnings about the fixture's scenario, or
// why the runtime cannot replay it.
func admit(fx *fixture.Fixture, rt agentsnap.Runtime, cmds commands) ([]string, error) {
	if fx.Scenario.Recorded == nil {
		// Without it the replay would offer the agent no model, and every
		// request would read as drift: "the model changed from
		// playbook/playbook to /".
		path := filepath.Join(fx.Dir, scenario.File)
		return nil, notMended{fmt.Errorf("judge: %s: %w: %s has no \"recorded\" member, or it is null, but the fixture holds recorded logs: that member names the model, the provider and the runtime they were recorded with, which a replay needs; restore it from version control (git checkout -- %s), or re-record the scenario with the runtime that recorded it", fx.Name, fixture.ErrFixture, path, path)}
	}
	if err := fitsRuntime(fx, rt, cmds); err != nil {
		return nil, err
	}
	warnings, err := agentsnap.Validate(rt, fx.Scenario)
	if err != nil {
		return nil, fmt.Errorf("judge: %s: %w", fx.Name, err)
	}
	return warnings, nil
}

// openStore opens the store a replay writes its logs to: opener's, or a
// memory store. opener's must hold no session yet: the replay creates its
// sessions there and judges every session the store holds, so a store kept
// from an earlier run would fail the replay as a broken recording would
// ("session already exists", "recording not consumed").
func openStore(ctx context.Context, fx *fixture.Fixture, opener func() (persistence.Store, error)) (persistence.Store, error) {
	if opener == nil {
		return memory.New(), nil
	}
	store, err := opener()
	if err != nil {
		return nil, fmt.Errorf("judge: %s: the store of Options.Store does not open: %w; %snothing was replayed", fx.Name, err, knownOpenAdvice(err))
	}
	held, err := store.List(ctx)
	if err == nil && len(held) > 0 {
		// A root names the earlier run best; a JSONL folder lists its
		// sessions by file name.
		if i := slices.IndexFunc(held, func(h session.Header) bool { return !h.IsChild() }); i > 0 {
			held[0] = held[i]
		}
		err = fmt.Errorf("it already holds %d %s (such as %s), an earlier run's: a replay writes its sessions there and judges every session it holds, so give each replay an empty store (a new path, such as one under t.TempDir()) or delete the old", len(held), english.Plural(len(held), "session"), held[0].ID)
	}
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("judge: %s: the store of Options.Store: %w", fx.Name, err)
	}
	return store, nil
}

// knownOpenAdvice is persistence.OpenAdvice's advice and "; " when it
// recognises err and err does not say itself what to do, else "".
// Options.Store's function is the caller's own — a database connection, a
// folder it chose — so the advice for a path the
// CLI opens (OpenAdvice(nil)) would mislead.
func knownOpenAdvice(err error) string {
	if a := persistence.OpenAdvice(err); a != "" && a != persistence.OpenAdvice(nil) {
		return a + "; "
	}
	return ""
}

// replayEnv is the Env a replay runs the runtime in: the replay driver
// answering model calls and recorded tools, in virtual time.
func replayEnv(fx *fixture.Fixture, drv *fakellm.Driver, store persistence.Store, cwd string, logf func(string, ...any)) *agentsnap.Env {
	env := &agentsnap.Env{
		Scenario:    fx.Scenario,
		Dir:         fx.Dir,
		Driver:      drv,
		ToolReplay:  drv,
		Store:       drv.Watch(store),
		Clock:       func() time.Time { return agentsnap.Epoch },
		WithTimeout: drv.WithTimeout,
		Cwd:         cwd,
		Logf:        logf,
	}
	if r := fx.Scenario.Recorded; r != nil {
		env.Provider, env.Model = r.Provider, r.Model
	}
	return env
}

// prepared is what every replay of one fixture with one set of options
// shares, made by its first: the scripts, derived once, the command that
// re-records it and the working folder. A schedule search's replays get
// their first's (Options.prepared), so a search derives nothing again.
type prepared struct {
	rec      *fakellm.Recording
	once     bool          // the scripts are replayed once, by a lean replay (Options.Once, fixture.Open)
	record   func() string // the command that re-records the scenario, made when an error first names it
	fresh    string        // Hints.Fresh, which the driver's errors end with instead of record
	cwd      string
	warnings []string // the runtime's warnings about the scenario's settings
	// ownHeads reports that the scripts were derived from the fixture's
	// files by fakellm itself, each with its log's header, in file order:
	// the verdict pairs the sessions by them without reading the files'
	// headers again.
	ownHeads bool
	// kept is what the verdict needs of each of the fixture's files, read
	// as their scripts were derived (ownHeads only): the verdict reads
	// again only the files of sessions that differ (judgeKept).
	kept []keptLog
}

// prepare derives fx's scripts and refuses a fixture whose replay would
// wait forever.
func prepare(fx *fixture.Fixture, opts Options, cmds commands) (*prepared, error) {
	var fopts []fakellm.Option
	if fx.Override != nil {
		fopts = append(fopts, fakellm.WithOverride(fx.Override))
	}
	if opts.Deriver != nil {
		fopts = append(fopts, fakellm.WithDeriver(opts.Deriver))
	}
	if cmds.Fresh != "" { // a log it refuses was written moments ago: no stale fixture
		fopts = append(fopts, fakellm.WithAdvice(cmds.Fresh))
	}
	var kept []keptLog
	if fx.Logs == nil && opts.Deriver == nil && len(fx.LogPaths()) > 0 {
		kept = make([]keptLog, len(fx.LogPaths()))
		fopts = append(fopts, keepRead(fx, kept))
	}
	rec, err := derive(fx, fopts)
	if err != nil {
		return nil, err
	}
	if err := checkHangs(fx, rec.Scripts(), cmds); err != nil {
		return nil, err
	}
	once := opts.Once && fx.Logs == nil
	ownHeads := kept != nil && len(rec.Scripts()) == len(kept)
	if !ownHeads {
		kept = nil
	}
	return &prepared{rec: rec, once: once, record: sync.OnceValue(func() string { return cmds.record(fx) }), fresh: cmds.Fresh, cwd: cmds.cwd, ownHeads: ownHeads, kept: kept}, nil
}

// derive derives fx's scripts: from its logs in memory, or, for a fixture
// opened without them, from its files as they are read.
func derive(fx *fixture.Fixture, fopts []fakellm.Option) (*fakellm.Recording, error) {
	if fx.Logs != nil || len(fx.LogPaths()) == 0 {
		rec, err := fakellm.Prepare(fx.Logs, fopts...)
		if err != nil {
			return nil, inRecording{fmt.Errorf("judge: %s: %w", fx.Name, err)}
		}
		return rec, nil
	}
	rec, err := fakellm.PrepareFiles(fx.LogPaths(), fopts...)
	var pe *session.ParseError
	if errors.Is(err, fakellm.ErrTornLog) || errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		// A file that does not read as a log: said as fixture.Load says it
		// (reading the logs only on the way to that error).
		if lerr := fx.ReadLogs(); lerr != nil {
			return nil, fmt.Errorf("judge: %w", lerr)
		}
	}
	if err != nil {
		return nil, inRecording{fmt.Errorf("judge: %s: %w", fx.Name, err)}
	}
	return rec, nil // the files' lineage order is checked with the logs, for the verdict
}

// driver returns a new replay driver of the prepared scripts, in virtual
// time, under the schedule.
func (p *prepared) driver(fx *fixture.Fixture, sched scheduling, logf func(string, ...any)) (*fakellm.Driver, error) {
	fopts := append([]fakellm.Option{fakellm.WithRecordCommandFunc(p.record), fakellm.WithVirtualTime()}, sched.driverOptions()...)
	if p.fresh != "" {
		fopts = append(fopts, fakellm.WithAdvice(p.fresh))
	}
	if p.once {
		fopts = append(fopts, fakellm.WithReleaseServed()) // no other replay shares the scripts
	}
	if logf != nil {
		fopts = append(fopts, fakellm.WithLogf(logf))
	}
	drv, err := p.rec.Driver(fopts...)
	if err != nil {
		return nil, fmt.Errorf("judge: %s: %w", fx.Name, err)
	}
	return drv, nil
}

// stalePlaybook says why the recording no longer follows its playbook —
// playbook.json changed since — or "".
func stalePlaybook(fx *fixture.Fixture, cmds commands) string {
	rec := fx.Scenario.Recorded
	if rec == nil || rec.Playbook == "" {
		return ""
	}
	b, err := readfile.Read(filepath.Join(fx.Dir, fixture.PlaybookFile))
	if err != nil {
		return "" // a playbook removed after recording asks for nothing
	}
	if now := fixture.PlaybookDigest(b); !fixture.PlaybookRecorded(b, rec.Playbook) {
		return fmt.Sprintf("%s changed since the recording (recorded %s, now %s): the fixture no longer shows what the playbook says; %s", filepath.Join(fx.Dir, fixture.PlaybookFile), rec.Playbook, now, cmds.redo(fx))
	}
	return ""
}

// fitsRuntime refuses to replay a fixture with a runtime other than the
// one that recorded it: every difference would be noise.
func fitsRuntime(fx *fixture.Fixture, rt agentsnap.Runtime, cmds commands) error {
	rec := fx.Scenario.Recorded
	name := agentsnap.NameOf(rt)
	if cmds.Fresh != "" {
		// The runtime that recorded it moments ago replays it: only its
		// name can have changed in between.
		if recorded := cmds.recordedBy(fx); recorded != name {
			return notMended{fmt.Errorf("judge: %s: %w: it was recorded by a runtime named %q and is replayed by one named %q, made the same way: a runtime's name (agentsnap.Named) must not change from run to run; %s", fx.Name, fixture.ErrFixture, recorded, name, cmds.Fresh)}
		}
		return nil
	}
	if unnamedFromTest(fx) && name == agentsnap.ReferenceName {
		// The runtime that recorded it left no name to compare, but it
		// was not the reference runtime, which has one.
		why := fmt.Sprintf("it was recorded from a test (%s recorded.by %q) by a runtime without a name, not by agentsnap's reference runtime", filepath.Join(fx.Dir, scenario.File), rec.By)
		if cmds.cli() {
			return notMended{fmt.Errorf("judge: %s: %w: %s, the only runtime the agentsnap CLI replays; replay it with the test that recorded it, which replays %s: go test ./... from the module root (or go test on that test's package)", fx.Name, fixture.ErrFixture, why, fx.Dir)}
		}
		return notMended{fmt.Errorf("judge: %s: %w: %s, which this replay runs; pass the runtime that recorded it in harness.Options{Runtime: ...}, or re-record with: %s", fx.Name, fixture.ErrFixture, why, cmds.record(fx))}
	}
	if rec == nil || rec.Runtime == "" || name == "" || rec.Runtime == name {
		return nil
	}
	if cmds.cli() {
		return notMended{fmt.Errorf("judge: %s: %w: it was recorded with the runtime %q, and the agentsnap CLI replays only its reference runtime; replay it from the tests that use %q (go test ./...), or, for an agent in another process, with %s --runtime %s and the agent run against the URL it prints", fx.Name, fixture.ErrFixture, rec.Runtime, rec.Runtime, cmds.tool("serve", fx.Dir), rec.Runtime)}
	}
	return notMended{fmt.Errorf("judge: %s: %w: it was recorded with the runtime %q, and this replay runs %q; pass that runtime in harness.Options{Runtime: ...}, or re-record with: %s", fx.Name, fixture.ErrFixture, rec.Runtime, name, cmds.record(fx))}
}

// run runs rt under a context of its own, without ctx's deadline (a
// runtime derives no real timer from it). When ctx ends first, late is
// true and waiting is what the replay waited for, taken before the
// runtime's context is cancelled.
func run(ctx context.Context, rt agentsnap.Runtime, env *agentsnap.Env, drv *fakellm.Driver) (err error, waiting []string, late bool) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	taken := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		waiting = drv.Waiting()
		cancel()
		close(taken)
	})
	err = rt.Run(rctx, env)
	if stop() {
		return err, nil, false
	}
	<-taken
	return err, waiting, true
}

// unfinished is the error of a replay whose context ended first.
func unfinished(fx *fixture.Fixture, cause error, waiting []string, cmds commands) error {
	var b strings.Builder
	if len(waiting) == 0 {
		b.WriteString("; no model call was in flight or due: the runtime itself did not return")
	} else {
		b.WriteString("; it waits for:")
		for _, w := range waiting {
			b.WriteString("\n  " + w)
		}
	}
	more := "the test's timeout (go test -timeout, or the spec's timeout)"
	if cmds.cli() {
		more = "--timeout: " + cmds.tool("check --timeout 30m", fx.Dir)
	}
	fmt.Fprintf(&b, "\nThe runtime waits for what the recording does not give it — a call it does not make, a cancel that does not come — so compare its path with the recording%s. If the replay is only slow, give it more time with %s.", cmds.orRedo(fx), more)
	return fmt.Errorf("judge: %s: %w (%w)%s", fx.Name, ErrUnfinished, cause, b.String())
}

// checkHangs refuses a fixture whose replay would wait forever: a hang
// answer lasts until the turn's context is cancelled, which only
// turnTimeout does. A call recorded as aborted waits the same way; the
// reference runtime cancels nothing but with turnTimeout, while a runtime
// of one's own may cancel a call itself, so only the reference runtime's
// are refused.
func checkHangs(fx *fixture.Fixture, scripts []*fakellm.Script, cmds commands) error {
	if fx.Scenario.TurnTimeout > 0 {
		return nil
	}
	for _, s := range scripts {
		for i, e := range s.Entries {
			if e.Kind == fakellm.KindHang {
				return notMended{fmt.Errorf("judge: %s: %w: %s call %d is a hang, which lasts until the turn is cancelled, but scenario.json sets no turnTimeout, so the replay would wait forever; set \"turnTimeout\" (e.g. \"500ms\") in %s/scenario.json", fx.Name, fixture.ErrFixture, s.Name, i+1, fx.Dir)}
			}
			if cmds.byCLI(fx) && e.Waits() {
				return notMended{fmt.Errorf("judge: %s: %w: %s call %d was recorded aborted (its turn was cancelled while it streamed), and its replay waits for the same cancel, but scenario.json sets no turnTimeout and the reference runtime cancels nothing else, so the replay would wait forever; set \"turnTimeout\" in %s/scenario.json to the one it was recorded with%s", fx.Name, fixture.ErrFixture, s.Name, i+1, fx.Dir, cmds.orRedo(fx))}
			}
		}
	}
	return nil
}
