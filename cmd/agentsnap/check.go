package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/scenario"
)

func init() {
	register(&command{
		name:    "check",
		args:    "[DIR...] [--update] [--jobs N] [--store memory:|jsonl:DIR|sqlite:PATH]",
		summary: "replay scenarios and compare them with their fixtures and goldens",
		order:   30,
		detail: `
Replays every scenario under the given folders (default ./fixtures/...)
exactly as the suites do — agentsnap's reference runtime, fakellm from the
recorded logs, no network, no key — and compares each replayed log with its
fixture, the transcript with transcript.golden, and the recording with what
its category requires (see the README's category rules). Prints a table
(scenario, sessions, model calls, result), the replay driver's notes, and
for each failure what differs and the command that fixes it. DIR may be a
scenario folder, a category folder, a fixtures folder, or any of them
followed by /... . A scenario recorded with another runtime (a team's own)
is replayed by that team's tests, not here.

--update rewrites transcript.golden from the replay, for scenarios whose
replay matched its recording — only goldens, never session logs, and not
under CI unless AGENTSNAP_FORCE_UPDATE=1. Without it check never writes a
fixture.

--store replays through a JSONL folder (jsonl:DIR) or a SQLite database file
(sqlite:PATH) instead of memory, kept for inspection; each scenario's
sessions are stored under CATEGORY/NAME/ ids. jsonl: and sqlite: without a
path use a temporary place.

Exit status 0 when every scenario passes, 1 when any fails, 2 on bad usage.`,
		flags: func() *flag.FlagSet { return new(checkFlags).set() },
		run:   runCheck,
	})
}

type checkFlags struct {
	jobs      int
	storeSpec string
	update    bool
}

func (f *checkFlags) set() *flag.FlagSet {
	fs := newFlagSet("check")
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "scenarios replayed at once")
	fs.StringVar(&f.storeSpec, "store", "memory:", "the store replays persist through: memory:, jsonl:DIR or sqlite:PATH")
	fs.BoolVar(&f.update, "update", false, "rewrite transcript.golden from replays that match their recording")
	return fs
}

// checkResult is one row of the table.
type checkResult struct {
	name, dir       string
	sessions, calls int
	verdict         string
	detail          string
	notes           []string
}

func runCheck(ctx context.Context, e *env, args []string) int {
	var f checkFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "check", "%v", err)
	}
	if len(pos) == 0 {
		pos = []string{"./fixtures/..."}
	}
	store, cleanup, err := replayStore(ctx, e, f.storeSpec)
	if err != nil {
		return usageError(e, "check", "--store: %v", err)
	}
	defer cleanup()
	var dirs []string
	for _, p := range pos {
		found, err := scenarioDirs(e.path(p))
		if err != nil {
			return fail(e, "check", err)
		}
		dirs = append(dirs, found...)
	}
	if len(dirs) == 0 {
		return fail(e, "check", fmt.Errorf("no scenarios under %s; create one with: go tool agentsnap new CATEGORY/NAME", strings.Join(pos, " ")))
	}
	slices.SortFunc(dirs, naturalCompare)
	if f.update {
		if why := harness.UpdateRefusal(); why != "" {
			return fail(e, "check", fmt.Errorf("%s", why))
		}
	}
	results := make([]checkResult, len(dirs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, f.jobs) {
		wg.Go(func() {
			for i := range work {
				results[i] = checkOne(ctx, dirs[i], store(dirs[i]), f.update)
			}
		})
	}
	for i := range dirs {
		work <- i
	}
	close(work)
	wg.Wait()
	return printCheck(e, results)
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
		return nil, noop, err
	}
	closeAll := func() { shared.Close(); cleanup() }
	return func(dir string) func() (persistence.Store, error) {
		prefix := harness.Name(dir) + "/"
		return func() (persistence.Store, error) { return persistence.Namespace(shared, prefix), nil }
	}, closeAll, nil
}

// scenarioDirs resolves one argument to scenario folders.
func scenarioDirs(arg string) ([]string, error) {
	root := strings.TrimSuffix(strings.TrimSuffix(arg, "..."), string(filepath.Separator))
	if root == "" || root == "." {
		root = "."
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder; give a scenario folder, a category folder or a fixtures folder", arg)
	}
	if _, err := os.Stat(filepath.Join(root, scenario.File)); err == nil {
		return []string{root}, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == scenario.File {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	return out, err
}

func checkOne(ctx context.Context, dir string, store func() (persistence.Store, error), update bool) checkResult {
	r := checkResult{name: harness.Name(dir), dir: dir}
	fx, err := harness.LoadFixture(dir)
	if err != nil {
		r.verdict, r.detail = "ERROR", err.Error()
		return r
	}
	r.sessions = len(fx.Logs)
	o, err := harness.Replay(ctx, fx, harness.Options{Store: store, FromCLI: true})
	if err != nil {
		r.verdict, r.detail = "ERROR", err.Error()
		return r
	}
	r.calls = o.Calls
	r.notes = append(o.Warnings, o.Notes...)
	var problems []string
	if !o.Passed() {
		problems = append(problems, o.Report())
	}
	var g harness.GoldenResult
	if update && o.Passed() {
		g = harness.UpdateGolden(o)
	} else {
		g = harness.CompareGolden(o)
	}
	if g.Message != "" {
		problems = append(problems, g.Message)
	}
	switch {
	case len(problems) == 0 && g.Updated:
		r.verdict = "ok, golden updated"
	case len(problems) == 0:
		r.verdict = "ok"
	case o.Passed():
		r.verdict, r.detail = "FAIL golden", strings.Join(problems, "\n")
	default:
		r.verdict, r.detail = "FAIL replay", strings.Join(problems, "\n")
	}
	return r
}

func printCheck(e *env, results []checkResult) int {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSESSIONS\tMODEL CALLS\tRESULT")
	failed := 0
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.name, r.sessions, r.calls, r.verdict)
		if !strings.HasPrefix(r.verdict, "ok") {
			failed++
		}
	}
	tw.Flush()
	for _, r := range results {
		for _, n := range r.notes {
			fmt.Fprintf(e.stdout, "note: %s: %s\n", r.name, n)
		}
	}
	for _, r := range results {
		if r.detail != "" {
			fmt.Fprintf(e.stdout, "\n--- %s (%s)\n%s\n", r.name, r.dir, strings.TrimRight(r.detail, "\n"))
		}
	}
	fmt.Fprintf(e.stdout, "\n%s, %d passed, %d failed\n", count(len(results), "scenario"), len(results)-failed, failed)
	if failed > 0 {
		return exitFail
	}
	return exitOK
}

// naturalCompare orders paths with their digit runs compared as numbers,
// so fan-out-2 comes before fan-out-10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
