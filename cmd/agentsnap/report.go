package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/report"
)

func init() {
	register(&command{
		name:    "report",
		args:    "[DIR...] -o FILE [--jobs N] [--timeout D]",
		summary: "write one self-contained HTML page of the scenarios: agent trees, diffs",
		order:   35,
		detail: `
Replays every scenario under the given folders (default ./fixtures/...) as
"agentsnap check" does, and writes one HTML file for a reviewer's browser or
a CI artifact: a status summary, then every scenario's agent tree — root,
spawn and fork children nested by lineage, each fork's inherited prefix
collapsed — with its turns, steps, tool calls and tokens. A scenario that
fails, errs or has a golden proposal (transcript.golden.new) waiting for
review is expanded, golden and replay side by side with the first
divergence marked, and shows what differs and the command that fixes it.
The page loads nothing from the network and works opened from disk. The
file is written atomically; nothing else is.

"agentsnap check --report FILE" writes the same page after a check.

--timeout D (default 10m, 1s to 24h) bounds the whole run, as for check:
a scenario still replaying when it has passed is shown as an error that
says what its replay waits for.

Exit status 0 when the file is written, whatever the scenarios' results (it
is a viewer; check judges), 1 when it cannot be, 2 on bad usage.`,
		flags: func() *flag.FlagSet { return new(reportFlags).set() },
		run:   runReport,
	})
}

type reportFlags struct {
	out     string
	jobs    int
	timeout time.Duration
}

func (f *reportFlags) set() *flag.FlagSet {
	fs := newFlagSet("report")
	fs.StringVar(&f.out, "o", "", "the HTML `FILE` to write (required)")
	fs.IntVar(&f.jobs, "jobs", defaultJobs(), "replay `N` scenarios at once")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "give up after `D` (1s to 24h), naming what each unfinished replay waits for")
	return fs
}

func runReport(ctx context.Context, e *env, args []string) int {
	var f reportFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "report", "%v", err)
	}
	if f.out == "" {
		return usageError(e, "report", "-o FILE is required: the HTML file to write")
	}
	if err := reportFolder("-o", e.path(f.out), f.out); err != nil {
		return usageError(e, "report", "%v", err)
	}
	if err := checkJobs(f.jobs); err != nil {
		return usageError(e, "report", "%v", err)
	}
	if err := checkTimeout(f.timeout); err != nil {
		return usageError(e, "report", "%v", err)
	}
	dirs, code := findScenarios(e, "report", pos)
	if code != exitOK {
		return code
	}
	rctx, cancel := context.WithTimeout(withSecrets(ctx, e), f.timeout)
	defer cancel()
	results := replayAll(dirs, f.jobs, func(dir string) checkResult {
		return checkOne(rctx, dir, nil, checkOptions{page: true, readOnly: true})
	})
	printDeadline(e, "report", rctx, f.timeout, results)
	if err := writeReport(e, "-o", f.out, "agentsnap report", results); err != nil {
		return fail(e, "report", err)
	}
	return exitOK
}

// reportFolder refuses a report path that is a folder before anything is
// replayed: the write at the end would fail as "rename TMP PATH: file
// exists". name is the path as the user gave it.
func reportFolder(flag, path, name string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s is a folder; give %s the file to write, such as %s", flag, name, flag, filepath.Join(name, "report.html"))
	}
	return nil
}

// writeReport writes the HTML report of results to path, atomically, and
// says so on stderr (stdout may hold check's JSON or XML). flag is the
// flag that named path (-o, --report), for the message when it cannot.
func writeReport(e *env, flag, path, title string, results []checkResult) error {
	scenarios := make([]report.Scenario, 0, len(results))
	counts := map[string]int{}
	for _, r := range results {
		if r.page != nil {
			scenarios = append(scenarios, *r.page)
			counts[r.page.Status]++
		}
	}
	var page bytes.Buffer
	if err := report.Write(&page, title, scenarios); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(e.path(path), page.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w; give %s a file in a folder that exists and is writable", err, flag)
	}
	var parts []string
	for _, st := range []string{report.StatusPass, report.StatusFail, report.StatusPending, report.StatusError} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	fmt.Fprintf(e.stderr, "report: wrote %s (%s: %s)\n", printable(path), english.Count(len(scenarios), "scenario"), strings.Join(parts, ", "))
	return nil
}

// pageScenario is what the report shows of a checked scenario. fx is nil
// when the fixture could not be loaded, o when it could not be replayed.
// A scenario whose replay matches its recording and that has a golden
// proposal beside its golden is pending, the proposal on the replay side.
func pageScenario(r *checkResult, fx *fixture.Fixture, o *judge.Outcome) *report.Scenario {
	sc := &report.Scenario{Name: r.name, Dir: r.dir, Status: r.status, FixCommand: r.fix}
	// The summary shows the first line of the first problem: lead with
	// the most telling line rather than the report's title.
	if r.status == statusFail && r.first != "" {
		sc.Problems = append(sc.Problems, r.first)
	}
	sc.Problems = append(sc.Problems, r.problems...)
	if fx != nil {
		sc.Recorded = fx.Logs
	}
	if o == nil {
		return sc // no replay: the golden transcript has nothing to face
	}
	if b, err := os.ReadFile(fx.Golden); err == nil {
		sc.GoldenTranscript = string(b)
	}
	sc.Replayed, sc.ReplayTranscript = o.Replayed, o.Transcript
	proposal := fixture.ProposalPath(fx.Golden)
	if b, err := os.ReadFile(proposal); err == nil && o.Passed() {
		sc.Status, sc.ReplayTranscript = report.StatusPending, string(b)
		sc.FixCommand = "go tool agentsnap review " + r.dir
		note := fmt.Sprintf("a golden proposal waits for review: %s (shown as the replay side of the transcript)", proposal)
		sc.Problems = append([]string{note}, sc.Problems...)
	}
	return sc
}
