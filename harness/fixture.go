package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// recordedLogs lists session.jsonl and session.1.jsonl ... and refuses gaps
// in the numbering.
func recordedLogs(dir string) ([]string, error) {
	paths := []string{filepath.Join(dir, session.RootFile)}
	for n := 1; ; n++ {
		p := filepath.Join(dir, session.ChildFile(n))
		if _, err := os.Stat(p); err != nil {
			break
		}
		paths = append(paths, p)
	}
	all, err := session.FolderLogs(dir)
	if err != nil {
		return nil, err
	}
	if len(all) != len(paths) {
		return nil, fmt.Errorf("harness: %w: %s holds %d session logs but only %s..%s are numbered without a gap; re-record with: %s", ErrFixture, dir, len(all), session.RootFile, filepath.Base(paths[len(paths)-1]), commands{}.tool("record", dir))
	}
	return paths, nil
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
