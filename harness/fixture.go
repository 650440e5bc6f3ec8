package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Fixture is a loaded scenario folder.
type Fixture struct {
	Dir      string // as given
	Name     string // CATEGORY/NAME
	Scenario *scenario.Scenario
	Logs     []*session.Log    // session.jsonl, session.1.jsonl, ... in file order
	Override *fakellm.Override // replay.override.json, or nil
	Golden   string            // path of transcript.golden
}

// ErrFixture is wrapped by every error of LoadFixture.
var ErrFixture = errors.New("bad fixture")

// LoadFixture reads a scenario folder: scenario.json, every session log, the
// override sidecar. It checks that the logs form one tree whose lineage order
// is their file numbering and that none has a torn last line. Nothing is
// written.
func LoadFixture(dir string) (*Fixture, error) {
	fx := &Fixture{Dir: dir, Name: Name(dir), Golden: filepath.Join(dir, scenario.GoldenFile)}
	sc, err := scenario.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("harness: %w: %w", ErrFixture, err)
	}
	fx.Scenario = sc
	if _, err := os.Stat(filepath.Join(dir, session.RootFile)); err != nil {
		return nil, fmt.Errorf("harness: %w: %s has no %s; record it with: %s", ErrFixture, dir, session.RootFile, fx.RecordCommand())
	}
	paths, err := recordedLogs(dir)
	if err != nil {
		return nil, err
	}
	if err := missingChild(dir, len(paths)-1); err != nil {
		return nil, err
	}
	for _, p := range paths {
		l, err := session.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("harness: %w: %w", ErrFixture, err)
		}
		if l.Torn != nil {
			return nil, fmt.Errorf("harness: %w: %s:%d: the last line is incomplete (a recording was cut off); re-record with: %s", ErrFixture, p, l.Torn.Line, fx.RecordCommand())
		}
		fx.Logs = append(fx.Logs, l)
	}
	ordered, err := session.LineageOrder(fx.Logs)
	if err != nil {
		return nil, fmt.Errorf("harness: %w: %s: %w", ErrFixture, dir, err)
	}
	for i := range ordered {
		if ordered[i] != fx.Logs[i] {
			return nil, fmt.Errorf("harness: %w: %s: %s holds session %s, but lineage order puts %s there; re-record with: %s", ErrFixture, dir, filepath.Base(fx.Logs[i].Path), fx.Logs[i].Header.ID, ordered[i].Header.ID, fx.RecordCommand())
		}
	}
	ov := filepath.Join(dir, scenario.OverrideFile)
	if _, err := os.Stat(ov); err == nil {
		if fx.Override, err = fakellm.ReadOverride(ov); err != nil {
			return nil, fmt.Errorf("harness: %w: %w", ErrFixture, err)
		}
	}
	return fx, nil
}

// recordedLogs lists session.jsonl and session.1.jsonl ... in order. Every
// *.jsonl of dir must be one of them, numbered without a gap: a log that is
// missing, a directory or a dangling link is named, never reported as a
// count that does not add up.
func recordedLogs(dir string) ([]string, error) {
	fix := "re-record with: " + commands{}.tool("record", dir)
	all, err := session.FolderLogs(dir)
	if err != nil {
		return nil, fmt.Errorf("harness: %w: %w; or %s", ErrFixture, err, fix)
	}
	root := filepath.Join(dir, session.RootFile)
	if all[0] != root {
		return nil, fmt.Errorf("harness: %w: %s is missing; %s", ErrFixture, root, fix)
	}
	for i, p := range all[1:] {
		want := session.ChildFile(i + 1)
		switch base := filepath.Base(p); {
		case base == want:
		case childNumber(base) > i+1:
			return nil, fmt.Errorf("harness: %w: %s is missing: %s exists, and child logs are numbered from 1 without a gap; restore it, or %s", ErrFixture, filepath.Join(dir, want), base, fix)
		default:
			return nil, fmt.Errorf("harness: %w: %s is not a fixture log: a fixture holds %s and %s, %s, ... only; move it away, or %s", ErrFixture, p, session.RootFile, session.ChildFile(1), session.ChildFile(2), fix)
		}
	}
	return all, nil
}

// childNumber is n for a file named session.<n>.jsonl as ChildFile writes
// it, else 0.
func childNumber(base string) int {
	mid, ok := strings.CutPrefix(strings.TrimSuffix(base, ".jsonl"), "session.")
	n, err := strconv.Atoi(mid)
	if !ok || err != nil || n < 1 || session.ChildFile(n) != base {
		return 0
	}
	return n
}

// missingChild names the first child log of dir that transcript.golden
// shows but the fixture lacks — a deleted last log leaves no gap in the
// numbering — when children logs follow session.jsonl. A golden waiting
// beside its proposal may show sessions a new recording dropped, so it
// is not asked then.
func missingChild(dir string, children int) error {
	if _, err := os.Stat(filepath.Join(dir, scenario.ProposalFile)); err == nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, scenario.GoldenFile))
	if err != nil {
		return nil // no golden yet: nothing to compare with
	}
	want := children + 1
	prefix := fmt.Sprintf("== session %d: ", want)
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, prefix) {
			return fmt.Errorf("harness: %w: %s is missing: %s shows session %d (%s); restore the log, or re-record with: %s",
				ErrFixture, filepath.Join(dir, session.ChildFile(want)), scenario.GoldenFile, want, strings.TrimSpace(line), commands{}.tool("record", dir))
		}
	}
	return nil
}

// Name returns CATEGORY/NAME for a fixture folder.
func Name(dir string) string {
	clean := filepath.Clean(dir)
	return filepath.Base(filepath.Dir(clean)) + "/" + filepath.Base(clean)
}

// RecordCommand returns the CLI command that re-records the fixture with
// the reference runtime, from the module root.
func (fx *Fixture) RecordCommand() string { return commands{}.record(fx) }

// Category returns the fixture's category: the name of the folder it is in.
func (fx *Fixture) Category() string { return filepath.Base(filepath.Dir(filepath.Clean(fx.Dir))) }
