package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
)

func init() {
	register(&command{
		name:    "check",
		args:    "[DIR...] [--update] [--jobs N] [--store SPEC] [--format text|json|junit] [--report FILE] [--shard K/N] [--max-growth SHARE --baseline DIR] [--schedules N] [--schedule-seed S] [--timeout D]",
		summary: "replay scenarios and compare them with their fixtures and goldens",
		order:   30,
		detail: `
Replays every scenario under the given folders (default ./fixtures/...)
exactly as the suites do — agentsnap's reference runtime, fakellm from the
recorded logs, no network, no key — and compares each replayed log with its
fixture, the transcript with transcript.golden, and the recording with what
its category requires (see the README's category rules). Prints a table
(scenario, the recording's sessions and model calls as inspect counts
them, result), the replay driver's notes, and for each failure what
differs and the command that fixes it. DIR may be a scenario folder, a
category folder, a fixtures folder, or any of them followed by /... . A
scenario recorded with another runtime (a team's own: scenario.json names
it, or says a test recorded it with a runtime without a name) is replayed
by that team's tests, not here: it is an ERROR that names them.

--update rewrites transcript.golden from the replay, for scenarios whose
replay matched its recording — only goldens, never session logs, and not
under CI unless AGENTSNAP_FORCE_UPDATE=1. A session of the golden that the
replay no longer has goes with it, and a note warns of each, as of a child
whose mode (spawn, fork) or fork seed changed, as "agentsnap review" does
(its --accept asks for --force there). Without it check never writes a
fixture: a scenario whose replay matches but whose transcript differs from
its golden gets the transcript as a proposal beside it,
transcript.golden.new (listed after the table), for "agentsnap review" to
accept or reject; a matching transcript removes a stale one. Under CI no
proposal is written or removed.

--store replays through a JSONL folder (jsonl:DIR) or a SQLite database file
(sqlite:PATH) instead of memory, kept for inspection; each scenario's
sessions are stored under CATEGORY/NAME/ ids, and "agentsnap inspect" shows
each scenario's tree. The store must hold no sessions yet (a new path each
run), and a jsonl: folder nothing but session logs (not a fixtures folder).
jsonl: and sqlite: without a path use a temporary place.

--format json prints, instead of the table, one JSON object:
{"scenarios": [{"name", "dir", "status" (pass, fail or error), "sessions",
"calls", "firstDifference" (the most telling line: request drift, else the
replay driver's or a replay error, else the first log difference, else the
transcript's first changed line), "fix" (the command that fixes it:
re-record the scenario, or update its golden; "" when no command does —
scenario.json or replay.override.json to correct, a file to make
readable, a budget that grew, a --timeout too short — and "problems"
says what to do), "problems" (the full messages)}], "passed", "failed"}.
--format junit prints JUnit XML for CI test views: one testcase per
scenario, classname its category, name CATEGORY/NAME, a failure whose
message is the first difference.

--report FILE also writes the HTML page "agentsnap report" writes: every
scenario's agent tree, failing ones golden and replay side by side.

--shard K/N checks only shard K of N (1 <= K <= N), to split a run across
N CI jobs: a scenario is in shard K when the FNV-1a hash of its
CATEGORY/NAME, mod N, is K-1, so it always lands in the same shard and
adding a scenario moves no other. A shard that holds no scenario passes,
saying "nothing to check" (on stderr with --format json or junit). The
suites split the same way with AGENTSNAP_SHARD=K/N.

--max-growth SHARE --baseline DIR fails a scenario whose recording spends
more than SHARE (0.2 or 20%) over the same scenario in DIR: the tree's
cost when its scenario.json has prices, else its total tokens, from the
recorded usage (see "agentsnap help inspect"). DIR is the fixtures to
compare with, typically the main branch checked out beside the work tree
(git worktree add ../base origin/main; --baseline ../base); each scenario
is compared with the one at the same path under DIR, else with the only
one of its CATEGORY/NAME there. A scenario DIR lacks is noted, not
failed. Both trees are priced with the scenario's prices.
A bare SHARE above 1 (20 is 2000%) gets a warning, since 20% was likely
meant; growth beyond 100% is written as a percentage (150%).

--schedules N replays each scenario N times instead of once, each under a
seeded schedule (seeds 1..N, or from --schedule-seed on): the replay driver
times every model call of every session by the seed, so concurrent
subagents answer and finish in another order under each. Every schedule
must match the recording and write the same bytes; a failure names the two
schedules that differ, their first differing event and the command that
replays the failing schedule alone. A scenario.json "schedules" member asks
the same of one scenario. --schedule-seed S without --schedules replays
each scenario under the one schedule of seed S.

--timeout D (default 10m, 1s to 24h) bounds the whole run. Replays run in
virtual time — a recorded hang's turnTimeout fires as soon as every call
recorded before it has been answered, however long it is — so a replay
waits only when it cannot go on: the agent does not make a recorded call,
or waits for a cancel no timeout brings. A scenario still replaying when D
has passed fails with what it waits for, session by session; scenarios not
started by then are listed as not replayed.

Exit status 0 when every scenario passes, 1 when any fails (or the report
cannot be written — to stdout or --report FILE —, or --update is refused
under CI: then nothing is replayed), 2 on bad usage. A reader that stops
reading stdout (check … | head) changes nothing: check still cleans up,
writes --report and exits with its verdict.`,
		flags: func() *flag.FlagSet { return new(checkFlags).set() },
		run:   runCheck,
	})
}

type checkFlags struct {
	jobs      int
	storeSpec string
	update    bool
	format    string
	report    string
	shard     string
	maxGrowth string
	baseline  string
	schedules int
	seed      int64
	timeout   time.Duration
}

func (f *checkFlags) set() *flag.FlagSet {
	fs := newFlagSet("check")
	fs.IntVar(&f.jobs, "jobs", defaultJobs(), "replay `N` scenarios at once")
	fs.StringVar(&f.storeSpec, "store", "memory:", "the store `SPEC` replays persist through: memory:, jsonl:DIR or sqlite:PATH")
	fs.BoolVar(&f.update, "update", false, "rewrite transcript.golden from replays that match their recording")
	fs.StringVar(&f.format, "format", "text", "print `text|json|junit`: the table, one JSON object, or JUnit XML")
	fs.StringVar(&f.report, "report", "", "also write the HTML report to `FILE`")
	fs.StringVar(&f.shard, "shard", "", "check only shard `K/N` of the scenarios, split by a hash of CATEGORY/NAME")
	fs.StringVar(&f.maxGrowth, "max-growth", "", "fail a scenario whose cost, or tokens, grew by more than `SHARE` (0.2 or 20%) over --baseline")
	fs.StringVar(&f.baseline, "baseline", "", "the fixtures --max-growth compares with: a `DIR` such as a checkout of the main branch")
	fs.IntVar(&f.schedules, "schedules", 0, "replay each scenario under `N` seeded schedules of its concurrent calls")
	fs.Int64Var(&f.seed, "schedule-seed", 0, "the first schedule's seed `S`; without --schedules, replay under that one schedule")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "give up after `D` (1s to 24h), naming what each unfinished replay waits for")
	return fs
}

// The bounds of --timeout, for check and report.
const (
	defaultTimeout = 10 * time.Minute
	minTimeout     = time.Second
	maxTimeout     = 24 * time.Hour
)

// checkTimeout refuses a --timeout out of its bounds.
func checkTimeout(d time.Duration) error {
	if d < minTimeout || d > maxTimeout {
		return fmt.Errorf("--timeout %v: want a duration from %v to %v, such as 10m", d, minTimeout, maxTimeout)
	}
	return nil
}

// printDeadline says on stderr, when the deadline passed, which scenarios
// it cut and what to do.
func printDeadline(e *env, name string, ctx context.Context, d time.Duration, results []checkResult) {
	if ctx.Err() == nil {
		return
	}
	var cut []string
	skipped := 0
	for _, r := range results {
		switch {
		case r.late && r.sessions > 0:
			cut = append(cut, r.name)
		case r.late:
			skipped++
		}
	}
	msg := fmt.Sprintf("agentsnap %s: --timeout %v passed", name, d)
	if len(cut) > 0 {
		msg += fmt.Sprintf("; %s did not finish: %s (each one's message says what its replay waits for)", english.Count(len(cut), "scenario"), strings.Join(cut, ", "))
	}
	if skipped > 0 {
		msg += fmt.Sprintf("; %s not replayed", english.Count(skipped, "scenario"))
	}
	fmt.Fprintf(e.stderr, "%s. A replay that waits for a call the agent does not make, or for a cancel that never comes, needs a fix or a re-recording; if the replays are only slow, raise --timeout.\n", msg)
}

// checkOptions say what checkOne does besides comparing.
type checkOptions struct {
	update   bool         // rewrite goldens from passing replays
	page     bool         // keep what the HTML report shows
	readOnly bool         // write no golden proposal (the report command)
	growth   *growthCheck // --max-growth, or nil
	// schedules and seed are --schedules and --schedule-seed.
	schedules int
	seed      int64
}

func runCheck(ctx context.Context, e *env, args []string) int {
	var f checkFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "check", "%v", err)
	}
	printer, ok := printers[f.format]
	if !ok {
		return usageError(e, "check", "--format %q: want text, json or junit", f.format)
	}
	shard, err := parseShardFlag(f.shard)
	if err != nil {
		return usageError(e, "check", "--shard: %v", err)
	}
	if err := f.bounds(); err != nil {
		return usageError(e, "check", "%v", err)
	}
	if err := checkTimeout(f.timeout); err != nil {
		return usageError(e, "check", "%v", err)
	}
	growth, err := parseGrowthFlags(e, f.maxGrowth, f.baseline)
	if err != nil {
		return usageError(e, "check", "%v", err)
	}
	if f.report != "" {
		if err := reportFolder("--report", e.path(f.report), f.report); err != nil {
			return usageError(e, "check", "%v", err)
		}
	}
	store, cleanup, err := replayStore(ctx, e, f.storeSpec)
	if err != nil {
		return usageError(e, "check", "--store: %v", err)
	}
	defer cleanup()
	defer startingHeap(e.getenv, startHeap)()
	e, out := watchStdout(e)
	dirs, code := findScenarios(e, "check", pos)
	if code != exitOK {
		return code
	}
	dirs, none := shard.filter(dirs)
	if none != "" {
		// The text output says it in place of an empty table; json and
		// junit keep stdout to their format.
		if f.format == "text" {
			fmt.Fprintf(e.stdout, "nothing to check: %s (each scenario's shard is the hash of its CATEGORY/NAME)\n", none)
		} else {
			fmt.Fprintf(e.stderr, "agentsnap check: %s\n", none)
		}
	}
	if f.update {
		if why := judge.UpdateRefusal(); why != "" {
			return fail(e, "check", fmt.Errorf("%s", why))
		}
	}
	opts := checkOptions{update: f.update, page: f.report != "", growth: growth, schedules: f.schedules, seed: f.seed}
	rctx, cancel := context.WithTimeout(withSecrets(ctx, e), f.timeout)
	defer cancel()
	results := replayAll(dirs, f.jobs, func(dir string) checkResult {
		return checkOne(rctx, dir, store(dir), opts)
	})
	code = printer(e, results)
	printDeadline(e, "check", rctx, f.timeout, results)
	return finishCheck(e, f.report, results, out.err, code)
}

// finishCheck writes the --report page, if asked, and returns check's
// exit status: code, the verdict's, unless the page or the report on
// stdout was lost (outErr).
func finishCheck(e *env, report string, results []checkResult, outErr error, code int) int {
	if report != "" {
		if err := writeReport(e, "--report", report, "agentsnap check", results); err != nil {
			fmt.Fprintf(e.stderr, "agentsnap check: %v\n", err)
			return exitFail
		}
	}
	if outErr != nil && !readerLeft(outErr) {
		// A full disk or a failing device lost the report: the exit
		// status says so, whatever the scenarios did. A pipe whose
		// reader stopped reading (check … | head) took what it wanted.
		fmt.Fprintf(e.stderr, "agentsnap check: writing the report to stdout: %v; the report is incomplete, so the check fails whatever the scenarios did: run it again with stdout where it can be written (a file on a disk with room)\n", outErr)
		return exitFail
	}
	return code
}

// replayAll runs one per scenario folder, jobs at once, and returns the
// results in the folders' order.
func replayAll(dirs []string, jobs int, one func(dir string) checkResult) []checkResult {
	results := make([]checkResult, len(dirs))
	replay := func(i int) {
		start := time.Now()
		results[i] = one(dirs[i])
		results[i].seconds = time.Since(start).Seconds()
	}
	if jobs = min(jobs, len(dirs)); jobs <= 1 {
		// One at a time: on this goroutine, with no hand-over per scenario.
		for i := range dirs {
			replay(i)
		}
		return results
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range work {
				replay(i)
			}
		})
	}
	for i := range dirs {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

// replayStore returns, per scenario folder, how to open the store its
// replay persists through: nil (memory), or a namespaced view of one JSONL
// folder or SQLite database shared by every scenario.
func replayStore(ctx context.Context, e *env, spec string) (func(dir string) func() (persistence.Store, error), func(), error) {
	none := func(string) func() (persistence.Store, error) { return nil }
	kind, path, _ := strings.Cut(spec, ":")
	noop := func() {}
	switch kind {
	case "memory", "":
		if path != "" {
			return nil, noop, fmt.Errorf("memory takes no path; use --store memory:")
		}
		return none, noop, nil
	case "jsonl", "sqlite":
	default:
		return nil, noop, fmt.Errorf("%q: want memory:, jsonl:DIR or sqlite:PATH", spec)
	}
	cleanup := noop
	if path == "" {
		tmp, err := os.MkdirTemp("", "agentsnap-check-")
		if err != nil {
			return nil, noop, err
		}
		path, cleanup = filepath.Join(tmp, "replays"), func() { os.RemoveAll(tmp) }
		if kind == "sqlite" {
			path += ".db"
		}
	} else {
		path = e.path(path)
	}
	if kind == "sqlite" {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			cleanup()
			return nil, noop, fmt.Errorf("sqlite:%s is a folder; sqlite:PATH names a database file (it is created if missing)", path)
		}
	}
	shared, err := open.Store(ctx, kind+":"+path)
	if err != nil {
		cleanup()
		if a := persistence.OpenAdvice(err); a != "" {
			err = fmt.Errorf("%w; %s", err, a)
		}
		return nil, noop, err
	}
	// The replays create their sessions: a store that already holds some
	// (the last check's) would fail every replay on "session already
	// exists", and read like a broken agent.
	if held, err := shared.List(ctx); err != nil || len(held) > 0 {
		shared.Close()
		cleanup()
		if err != nil {
			return nil, noop, err
		}
		return nil, noop, fmt.Errorf("%s:%s already holds %s (such as %s); check writes its replays' sessions there, so give it an empty one: a new path, or delete the old", kind, path, english.Count(len(held), "session"), held[0].ID)
	}
	closeAll := func() { shared.Close(); cleanup() }
	return func(dir string) func() (persistence.Store, error) {
		prefix := fixture.Name(dir) + "/"
		return func() (persistence.Store, error) { return persistence.Namespace(shared, prefix), nil }
	}, closeAll, nil
}

// checkOne checks the scenario in dir. The secrets ctx carries (see
// withSecrets) show as [REDACTED] in all the result shows.
func checkOne(ctx context.Context, dir string, store func() (persistence.Store, error), opts checkOptions) checkResult {
	r := replayOne(ctx, dir, store, opts)
	r.redact(secret.FromContext(ctx))
	return r
}

func replayOne(ctx context.Context, dir string, store func() (persistence.Store, error), opts checkOptions) checkResult {
	r := checkResult{name: fixture.Name(dir), dir: dir}
	if ctx.Err() != nil {
		r.late = true
		r.setError(errors.New("not replayed: the --timeout passed before its turn"), nil, opts.page)
		return r
	}
	fx, err := fixture.Load(dir)
	if err != nil {
		r.fix = errorFix(dir, err)
		r.setError(err, nil, opts.page)
		return r
	}
	r.sessions = len(fx.Logs)
	r.unsafe = unprintableNames(fx.Logs)
	o, err := judge.Replay(ctx, fx, judge.Options{Runtime: agent.Reference, Store: store, Schedules: opts.schedules, ScheduleSeed: opts.seed})
	// The recording's model calls: a replay that matched it made as many,
	// and counted them; any other is counted from the recording.
	if err == nil && o.Passed() {
		r.calls = o.Calls
	} else {
		r.calls = modelCalls(fx.Logs)
	}
	if err != nil {
		r.late = errors.Is(err, judge.ErrUnfinished)
		r.fix = errorFix(dir, err)
		r.setError(err, fx, opts.page)
		return r
	}
	r.notes = o.Warnings
	if o.Passed() { // a failing scenario's report lists its notes
		r.notes = append(r.notes, o.Notes...)
	}
	updated := opts.update && o.Passed()
	var g judge.GoldenResult
	switch {
	case updated:
		g = judge.UpdateGolden(o)
	case opts.readOnly:
		g = judge.DiffGolden(o)
	default:
		g = judge.CompareGolden(o)
	}
	r.pending = g.Pending
	r.notes = append(r.notes, g.Warnings...) // --update removed a session, changed a mode or seed
	growth, note := opts.growth.check(fx)
	if note != "" {
		r.notes = append(r.notes, note)
	}
	r.judge(o, g, growth, updated)
	if opts.page {
		r.page = pageScenario(&r, fx, o)
	}
	return r
}

func printCheck(e *env, results []checkResult) int {
	code, failed := exitFor(results)
	// The report in a few writes (one for a few dozen scenarios): the
	// table's writer writes every cell and its padding apart, some 20
	// system calls a scenario on a terminal.
	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	if len(results) > 0 { // none: an empty shard, said before
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SCENARIO\tSESSIONS\tMODEL CALLS\tRESULT")
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", printable(r.name), r.sessions, r.calls, r.verdict)
		}
		tw.Flush()
	}
	for _, r := range results {
		for _, n := range r.notes {
			fmt.Fprintf(out, "note: %s: %s\n", printable(r.name), printableLines(r.shown(n)))
		}
	}
	for _, r := range results {
		if r.pending != "" {
			fmt.Fprintf(out, "golden pending: %s (review it with: go tool agentsnap review %s)\n", printable(r.pending), printable(r.dir))
		}
	}
	for _, r := range results {
		if len(r.problems) > 0 {
			fmt.Fprintf(out, "\n--- %s (%s)\n%s\n", printable(r.name), printable(r.dir), printableLines(r.shown(strings.TrimRight(strings.Join(r.problems, "\n"), "\n"))))
		}
	}
	fmt.Fprintf(out, "\n%s, %d passed, %d failed\n", english.Count(len(results), "scenario"), len(results)-failed, failed)
	return code
}
