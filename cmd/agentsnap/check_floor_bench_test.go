//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/session"
)

// floorEnvelope, floorHeader and floorChunk are what the decode floor
// fills: plain structs with encoding/json tags and no methods of their
// own, for the header, every event line and the chunk of every
// assistant/chunk event — what a replay needs of a log (the chunks make
// its scripts; every other payload is compared as it stands).
type floorEnvelope struct {
	Type string          `json:"type"`
	Seq  int64           `json:"seq"`
	Time int64           `json:"time"`
	Data json.RawMessage `json:"data"`
}

type floorHeader struct {
	Type            string `json:"type"`
	Version         int    `json:"version"`
	ID              string `json:"id"`
	CreatedAt       int64  `json:"createdAt"`
	Cwd             string `json:"cwd"`
	ParentSession   string `json:"parentSession"`
	SeedLength      int    `json:"seedLength"`
	Origin          string `json:"origin"`
	DelegationDepth int    `json:"delegationDepth"`
	AgentPreset     string `json:"agentPreset"`
	ParentCallID    string `json:"parentCallId"`
	Mode            string `json:"mode"`
}

type floorChunk struct {
	Turn    int `json:"turn"`
	Step    int `json:"step"`
	Attempt int `json:"attempt"`
	Chunk   struct {
		Type           string          `json:"type"`
		Index          int             `json:"index"`
		BlockType      string          `json:"blockType"`
		Text           string          `json:"text"`
		ID             string          `json:"id"`
		Name           string          `json:"name"`
		ArgumentsDelta string          `json:"argumentsDelta"`
		Block          json.RawMessage `json:"block"`
		Usage          json.RawMessage `json:"usage"`
		Reason         json.RawMessage `json:"reason"`
	} `json:"chunk"`
}

// decodeFloor reads every file of every scenario folder in dirs and
// decodes it with plain encoding/json: each *.jsonl line by line (the
// header into floorHeader, each event into floorEnvelope and an
// assistant/chunk's data into floorChunk), every other *.json into an
// any; transcript.golden is read only. It returns the events decoded.
func decodeFloor(dirs []string) (int, error) {
	n := 0
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return n, err
		}
		for _, de := range entries {
			if !de.Type().IsRegular() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, de.Name()))
			if err != nil {
				return n, err
			}
			switch name := de.Name(); {
			case strings.HasSuffix(name, ".jsonl"):
				k, err := decodeLogFloor(b)
				if err != nil {
					return n, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
				}
				n += k
			case strings.HasSuffix(name, ".json"):
				var v any
				if err := json.Unmarshal(b, &v); err != nil {
					return n, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
				}
			}
		}
	}
	return n, nil
}

func decodeLogFloor(b []byte) (int, error) {
	n := 0
	first := true
	for line := range bytes.Lines(b) {
		if first {
			var h floorHeader
			if err := json.Unmarshal(line, &h); err != nil {
				return n, err
			}
			first = false
			continue
		}
		var e floorEnvelope
		if err := json.Unmarshal(line, &e); err != nil {
			return n, err
		}
		if e.Type == session.TypeAssistantChunk {
			var c floorChunk
			if err := json.Unmarshal(e.Data, &c); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}

// floorDirs lists the folders under root that hold a scenario.json.
func floorDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "scenario.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	return dirs, err
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// cost is the wall time, CPU time and allocations of one piece of work.
type cost struct{ wall, cpu, allocs, bytes float64 }

// measure runs f and returns what it cost the process. It collects the
// garbage first, so that neither side pays for the other's.
func measure(f func()) cost {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpu, start := cpuNanos(), time.Now()
	f()
	wall, cpuUsed := time.Since(start), cpuNanos()-cpu
	runtime.ReadMemStats(&after)
	return cost{float64(wall.Nanoseconds()), float64(cpuUsed), float64(after.Mallocs - before.Mallocs), float64(after.TotalAlloc - before.TotalAlloc)}
}

// median returns the median of what of each cost.
func median(costs []cost, what func(c, floor cost) float64, floors []cost) float64 {
	v := make([]float64, len(costs))
	for i := range costs {
		v[i] = what(costs[i], floors[i])
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// benchFloor runs "agentsnap check --jobs 1" over root, and the decode
// floor over the same scenario folders, in alternating rounds, b.N rounds,
// and reports the medians of both and of their ratio per round, which a
// load that comes and goes on a shared machine moves least.
func benchFloor(b *testing.B, root string) {
	dirs, err := floorDirs(root)
	if err != nil || len(dirs) == 0 {
		b.Fatalf("no scenarios under %s: %v", root, err)
	}
	args := []string{"check", root + "/...", "--jobs", "1"}
	// A file for stdout, as a terminal or a pipe would be: the CLI's
	// writes are system calls, and count.
	out, err := os.Create(filepath.Join(b.TempDir(), "stdout"))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	var errb bytes.Buffer
	e := &env{stdout: out, stderr: &errb, getenv: func(string) string { return "" }}
	stdout := func() string {
		s, _ := os.ReadFile(out.Name())
		return string(s)
	}
	var checks, floors []cost
	events := 0
	for b.Loop() {
		floors = append(floors, measure(func() {
			if events, err = decodeFloor(dirs); err != nil {
				b.Fatal(err)
			}
		}))
		if err := out.Truncate(0); err != nil {
			b.Fatal(err)
		}
		if _, err := out.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		errb.Reset()
		checks = append(checks, measure(func() {
			if code := run(context.Background(), e, args); code != exitOK {
				b.Fatalf("agentsnap check exited %d:\n%s%s", code, errb.String(), benchTail(stdout(), 2000))
			}
		}))
	}
	if want := fmt.Sprintf("%s, %d passed, 0 failed", english.Count(len(dirs), "scenario"), len(dirs)); !strings.Contains(stdout(), want) {
		b.Fatalf("agentsnap check did not say %q:\n%s", want, benchTail(stdout(), 2000))
	}
	of := func(f func(c cost) float64) func(c, _ cost) float64 { return func(c, _ cost) float64 { return f(c) } }
	b.ReportMetric(median(checks, of(func(c cost) float64 { return c.wall }), floors), "check-ns/op")
	b.ReportMetric(median(floors, of(func(c cost) float64 { return c.wall }), floors), "floor-ns/op")
	b.ReportMetric(median(checks, func(c, f cost) float64 { return c.wall / f.wall }, floors), "ratio")
	b.ReportMetric(median(checks, func(c, f cost) float64 { return c.cpu / f.cpu }, floors), "cpu-ratio")
	b.ReportMetric(median(checks, of(func(c cost) float64 { return c.allocs }), floors), "check-allocs/op")
	b.ReportMetric(median(floors, of(func(c cost) float64 { return c.allocs }), floors), "floor-allocs/op")
	b.ReportMetric(median(checks, of(func(c cost) float64 { return c.bytes }), floors), "check-B/op")
	b.ReportMetric(median(floors, of(func(c cost) float64 { return c.bytes }), floors), "floor-B/op")
	b.ReportMetric(float64(len(dirs)), "scenarios")
	b.ReportMetric(float64(events), "events")
}

// BenchmarkCheckFloor holds "agentsnap check" (the CLI's code path, in
// process, --jobs 1) to the decode floor: reading the same scenario
// folders and decoding them with plain encoding/json (see decodeFloor),
// measured in alternating rounds of the same run. ratio is the median over
// the rounds of check's wall time over the floor's, cpu-ratio the same of
// the process's CPU time (the garbage collector's work included, which
// may run on the other core); each side's allocations are reported too.
// The sets: the repo's fixtures (copied, so nothing the check does can
// touch them), two of its scenarios alone, 300 generated scenarios of 2
// turns and 100 of 32 turns (each with a fork or spawn child; generating
// and recording them is outside the timer).
//
//	go test -run '^$' -bench CheckFloor -benchtime 10x ./cmd/agentsnap
func BenchmarkCheckFloor(b *testing.B) {
	repo := filepath.Join(b.TempDir(), "fixtures")
	if err := copyTree(filepath.Join("..", "..", "fixtures"), repo); err != nil {
		b.Fatal(err)
	}
	b.Run("set=fixtures", func(b *testing.B) { benchFloor(b, repo) })
	// A recorded hang replays in virtual time: as cheap as the scenario
	// beside it, not its 300ms turnTimeout.
	for _, name := range []string{"hang-timeout", "throw-midway"} {
		one := filepath.Join(b.TempDir(), "fixtures")
		if err := copyTree(filepath.Join(repo, "errors", name), filepath.Join(one, "errors", name)); err != nil {
			b.Fatal(err)
		}
		b.Run("set=errors/"+name, func(b *testing.B) { benchFloor(b, one) })
	}
	for _, size := range []struct{ count, turns int }{{300, 2}, {100, 32}} {
		root := filepath.Join(b.TempDir(), "fixtures")
		if _, err := buildTree(root, size.count, size.turns); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("set=%dx%dturns", size.count, size.turns), func(b *testing.B) { benchFloor(b, root) })
	}
}
