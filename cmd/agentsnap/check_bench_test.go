//go:build unix

// The benchmark reads the process's CPU time with getrusage, a unix call.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// benchText is the vocabulary of generated answers.
var benchText = strings.Fields("scenarios replay from their recorded logs with no network and no key café 42")

// benchAnswer returns a generated answer of n words that differs per scenario.
func benchAnswer(seed, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchText[(seed*7+i)%len(benchText)]
	}
	return strings.Join(w, " ")
}

// writeScenario writes scenario.json and playbook.json for generated
// scenario i into dir: turns-1 answered prompts, then a prompt whose answer
// delegates to a child — a fork for even i (inheriting the earlier turns),
// a spawn for odd i — and reports its answer. It returns the playbook.
func writeScenario(dir string, i, turns int) (*playbook.Playbook, error) {
	tool := "subagent_fork"
	if i%2 == 1 {
		tool = "subagent_spawn"
	}
	sc := &scenario.Scenario{
		Description: fmt.Sprintf("generated scenario %d: %d turns, the last one delegates through %s", i, turns, tool),
		Agent:       json.RawMessage(`{"preset":"default","system":"You are a benchmark agent.","tools":["subagent_spawn","subagent_fork"]}`),
		MaxDepth:    2,
	}
	root := []*playbook.Turn{}
	for t := 1; t < turns; t++ {
		sc.Prompts = append(sc.Prompts, fmt.Sprintf("Scenario %d, prompt %d: answer briefly.", i, t))
		root = append(root, &playbook.Turn{Text: benchAnswer(i+t, 12)})
	}
	sc.Prompts = append(sc.Prompts, "Delegate the summary to a child and report it.")
	args, _ := json.Marshal(map[string]string{"description": "Summary", "prompt": fmt.Sprintf("Summarise scenario %d.", i)})
	root = append(root,
		&playbook.Turn{ToolCalls: []playbook.ToolCall{{ID: "call_1", Name: tool, Arguments: args}}},
		&playbook.Turn{Text: "Reported: " + benchAnswer(i, 4)})
	pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{
		"root":   root,
		"call_1": {{Text: benchAnswer(i, 16)}},
	}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := sc.Save(dir); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(pb, "", "  ")
	if err != nil {
		return nil, err
	}
	return pb, os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), b, 0o644)
}

// benchTree is a generated fixtures tree: count scenarios of the given
// size, 100 to a category folder, recorded from their playbooks.
type benchTree struct {
	categories []string // category folders, in order
	events     []int    // logical events of the scenarios of each category
}

// buildTree generates and records count scenarios of turns turns under
// root, recording on two goroutines.
func buildTree(root string, count, turns int) (*benchTree, error) {
	const perCategory = 100
	tree := &benchTree{}
	for c := 0; c*perCategory < count; c++ {
		tree.categories = append(tree.categories, filepath.Join(root, fmt.Sprintf("cat%02d", c)))
	}
	tree.events = make([]int, len(tree.categories))
	var mu sync.Mutex
	var firstErr error
	work := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for i := range work {
				dir := filepath.Join(tree.categories[i/perCategory], fmt.Sprintf("s%04d", i))
				n, err := recordScenario(dir, i, turns)
				mu.Lock()
				tree.events[i/perCategory] += n
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	for i := range count {
		work <- i
	}
	close(work)
	wg.Wait()
	return tree, firstErr
}

// recordScenario writes and records scenario i and returns the number of
// logical events its logs hold.
func recordScenario(dir string, i, turns int) (int, error) {
	pb, err := writeScenario(dir, i, turns)
	if err != nil {
		return 0, err
	}
	clock := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	if _, err := recorder.Record(context.Background(), dir, recorder.Options{
		Runtime: agent.Reference, Driver: playbook.NewDriver(pb, filepath.Join(dir, fixture.PlaybookFile)), Provider: "playbook", Model: "playbook",
		By: "agentsnap bench", Clock: clock,
	}); err != nil {
		return 0, err
	}
	paths, err := session.FolderLogs(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range paths {
		l, err := session.ReadFile(p)
		if err != nil {
			return 0, err
		}
		n += len(l.Events)
	}
	return n, nil
}

// benchCheck runs "agentsnap check" over the first n categories of tree
// with --jobs jobs, b.N times, and reports the cost per scenario and per
// event.
func benchCheck(b *testing.B, tree *benchTree, categories, count, jobs int) {
	args := append([]string{"check"}, tree.categories[:categories]...)
	args = append(args, "--jobs", fmt.Sprint(jobs))
	events := 0
	for _, n := range tree.events[:categories] {
		events += n
	}
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	cpu := cpuNanos()
	for b.Loop() {
		out.Reset()
		errb.Reset()
		if code := run(context.Background(), e, args); code != exitOK {
			b.Fatalf("agentsnap check exited %d:\n%s%s", code, errb.String(), benchTail(out.String(), 2000))
		}
	}
	if want := fmt.Sprintf("%d scenarios, %d passed, 0 failed", count, count); !strings.Contains(out.String(), want) {
		b.Fatalf("agentsnap check did not say %q:\n%s", want, benchTail(out.String(), 2000))
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	cpuNS := float64(cpuNanos()-cpu) / float64(b.N)
	b.ReportMetric(ns/float64(count), "ns/scenario")
	b.ReportMetric(ns/float64(events), "ns/event")
	b.ReportMetric(cpuNS/float64(count), "cpu-ns/scenario")
	b.ReportMetric(cpuNS/float64(events), "cpu-ns/event")
	b.ReportMetric(cpuNS/ns, "cores")
	b.ReportMetric(float64(events)/float64(count), "events/scenario")
}

// cpuNanos returns the CPU time (user + system) the process has used: on a
// shared machine a steadier measure of the work than wall time, and, over
// wall time, the number of cores the work kept busy.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// BenchmarkCheck runs "agentsnap check" (the CLI's code path, in process)
// over generated, recorded scenarios: 100, 300 and 1,000 scenarios of two
// turns (one answered, one that forks or spawns a child), with --jobs 1
// and --jobs 2 so the use of a second core shows; and 100 scenarios of 8
// and 32 turns, so the growth with scenario size shows. ns/scenario stays
// flat as the count grows and ns/event flat as the size grows when check
// is linear. Each also reports the CPU time per scenario and per event
// (steadier than wall time on a shared machine) and cores, the CPU time
// over the wall time: about 1 with --jobs 1, towards 2 with --jobs 2 when
// the second core is free. Generating and recording the trees (about ten
// seconds on two cores) is outside the timer.
//
//	go test -run '^$' -bench BenchmarkCheck -benchtime 3x ./cmd/agentsnap
func BenchmarkCheck(b *testing.B) {
	start := time.Now()
	small, err := buildTree(filepath.Join(b.TempDir(), "fixtures"), 1000, 2)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated and recorded 1000 scenarios of 2 turns in %v", time.Since(start).Round(time.Millisecond))
	for _, count := range []int{100, 300, 1000} {
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("scenarios=%d/turns=2/jobs=%d", count, jobs), func(b *testing.B) {
				benchCheck(b, small, count/100, count, jobs)
			})
		}
	}
	for _, turns := range []int{8, 32} {
		tree, err := buildTree(filepath.Join(b.TempDir(), "fixtures"), 100, turns)
		if err != nil {
			b.Fatal(err)
		}
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("scenarios=100/turns=%d/jobs=%d", turns, jobs), func(b *testing.B) {
				benchCheck(b, tree, 1, 100, jobs)
			})
		}
	}
}
