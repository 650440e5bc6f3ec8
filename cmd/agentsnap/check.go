package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
		args:    "[DIR...] [--jobs N] [--store memory:|jsonl[:DIR]|sqlite[:DIR]]",
		summary: "replay scenarios and compare them with their fixtures and goldens",
		order:   30,
		detail: `
Replays every scenario under the given folders (default ./fixtures/...)
exactly as the suites do — fakellm from the recorded logs, no network, no
key — and compares each replayed log with its fixture and the transcript
with transcript.golden. Prints a table (scenario, sessions, model calls,
result) and, for each failure, what differs and the command that fixes it.
It never writes a fixture. DIR may be a scenario folder, a category folder, a
fixtures folder, or any of them followed by /... .

--store replays through JSONL files or SQLite databases instead of memory
(under DIR if given, kept for inspection; else in a temporary folder).

Exit status 0 when every scenario passes, 1 when any fails, 2 on bad usage.`,
		run: runCheck,
	})
}

// checkResult is one row of the table.
type checkResult struct {
	name, dir       string
	sessions, calls int
	verdict         string
	detail          string
}

func runCheck(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("check")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "scenarios replayed at once")
	storeSpec := fs.String("store", "memory:", "the store replays persist through: memory:, jsonl[:DIR] or sqlite[:DIR]")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return usageError(e, "check", "%v", err)
	}
	if len(pos) == 0 {
		pos = []string{"./fixtures/..."}
	}
	stores, cleanup, err := replayStores(e, *storeSpec)
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
		return fail(e, "check", fmt.Errorf("no scenarios under %s; create one with: agentsnap new CATEGORY/NAME", strings.Join(pos, " ")))
	}
	results := make([]checkResult, len(dirs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, *jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = checkOne(ctx, dirs[i], stores(dirs[i]))
			}
		}()
	}
	for i := range dirs {
		work <- i
	}
	close(work)
	wg.Wait()
	return printCheck(e, results)
}

// replayStores returns, per scenario folder, how to open the store its
// replay persists through. Each scenario gets its own place (their session
// ids repeat): DIR/CATEGORY/NAME for jsonl, DIR/CATEGORY-NAME.db for
// sqlite. Without DIR a temporary folder is used and removed afterwards.
func replayStores(e *env, spec string) (func(dir string) func() (persistence.Store, error), func(), error) {
	kind, dir, _ := strings.Cut(spec, ":")
	noop := func() {}
	switch kind {
	case "memory", "":
		if dir != "" {
			return nil, noop, fmt.Errorf("memory takes no path; use --store memory:")
		}
		return func(string) func() (persistence.Store, error) { return nil }, noop, nil
	case "jsonl", "sqlite":
	default:
		return nil, noop, fmt.Errorf("%q: want memory:, jsonl[:DIR] or sqlite[:DIR]", spec)
	}
	cleanup := noop
	if dir == "" {
		tmp, err := os.MkdirTemp("", "agentsnap-check-")
		if err != nil {
			return nil, noop, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	} else {
		dir = e.path(dir)
	}
	return func(scenarioDir string) func() (persistence.Store, error) {
		name := strings.ReplaceAll(harness.Name(scenarioDir), "/", string(filepath.Separator))
		path := filepath.Join(dir, name)
		if kind == "sqlite" {
			path = filepath.Join(dir, strings.ReplaceAll(harness.Name(scenarioDir), "/", "-")+".db")
		}
		return func() (persistence.Store, error) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			return open.Store(context.Background(), kind+":"+path)
		}
	}, cleanup, nil
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

func checkOne(ctx context.Context, dir string, store func() (persistence.Store, error)) checkResult {
	r := checkResult{name: harness.Name(dir), dir: dir}
	fx, err := harness.LoadFixture(dir)
	if err != nil {
		r.verdict, r.detail = "ERROR", err.Error()
		return r
	}
	r.sessions = len(fx.Logs)
	o, err := harness.Replay(ctx, fx, harness.Options{Store: store})
	if err != nil {
		r.verdict, r.detail = "ERROR", err.Error()
		return r
	}
	r.calls = o.Calls
	var problems []string
	if !o.Passed() {
		problems = append(problems, o.Report())
	}
	if g := harness.CompareGolden(o); g.Message != "" {
		problems = append(problems, g.Message)
	}
	switch {
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
		if r.verdict != "ok" {
			failed++
		}
	}
	tw.Flush()
	for _, r := range results {
		if r.detail != "" {
			fmt.Fprintf(e.stdout, "\n--- %s (%s)\n%s\n", r.name, r.dir, strings.TrimRight(r.detail, "\n"))
		}
	}
	fmt.Fprintf(e.stdout, "\n%d scenarios, %d passed, %d failed\n", len(results), len(results)-failed, failed)
	if failed > 0 {
		return exitFail
	}
	return exitOK
}
