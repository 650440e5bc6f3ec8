package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

// benchWords make the generated answers; SplitDeltas streams each word as
// one delta, so an answer of n words is n text-delta chunks.
var benchWords = strings.Fields("the fork child inherits every completed turn of its parent and answers from them café 42 — done")

// words returns n words of generated text, starting at word k.
func words(k, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = benchWords[(k+i)%len(benchWords)]
	}
	return strings.Join(out, " ")
}

// forkSpec sizes a generated fork scenario: turns answered before the fork
// (the child inherits them all as its seed), the words of each of those
// answers, and the words of the child's own answer.
type forkSpec struct {
	turns, answerWords, childWords int
}

// writeForkScenario writes and records fixtures/fork/<name> under root: the
// root answers spec.turns prompts, then forks a child that answers at
// length, then reports. It returns the fixture's folder.
func writeForkScenario(root, name string, spec forkSpec) (string, error) {
	dir := filepath.Join(root, "fork", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	sc := &scenario.Scenario{
		Description: fmt.Sprintf("generated: %d turns, then a fork", spec.turns),
		Agent:       json.RawMessage(`{"preset":"default","system":"You are a benchmark agent.","tools":["subagent_spawn","subagent_fork"]}`),
		MaxDepth:    2,
	}
	pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{}}
	for i := range spec.turns {
		sc.Prompts = append(sc.Prompts, fmt.Sprintf("Prompt %d: say something.", i+1))
		pb.Sessions["root"] = append(pb.Sessions["root"], &playbook.Turn{Text: words(i, spec.answerWords)})
	}
	sc.Prompts = append(sc.Prompts, "Fork a child to sum up, then report its answer.")
	args, _ := json.Marshal(map[string]string{"description": "Sum up", "prompt": "Sum up the conversation."})
	pb.Sessions["root"] = append(pb.Sessions["root"],
		&playbook.Turn{ToolCalls: []playbook.ToolCall{{ID: "call_fork_1", Name: "subagent_fork", Arguments: args}}},
		&playbook.Turn{Text: "The child summed it up."})
	pb.Sessions["call_fork_1"] = []*playbook.Turn{{Reasoning: words(3, 20), Text: words(7, spec.childWords)}}
	if err := sc.Save(dir); err != nil {
		return "", err
	}
	pbPath := filepath.Join(dir, fixture.PlaybookFile)
	b, err := json.MarshalIndent(pb, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(pbPath, b, 0o644); err != nil {
		return "", err
	}
	clock := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	_, err = recorder.Record(context.Background(), dir, recorder.Options{
		Runtime: agent.Reference, Driver: playbook.NewDriver(pb, pbPath), Provider: "playbook", Model: "playbook", By: "agentsnap bench", Clock: clock,
	})
	return dir, err
}

// countEvents is the number of logical events in the fixture's logs, seeds
// included.
func countEvents(fx *fixture.Fixture) int {
	n := 0
	for _, l := range fx.Logs {
		n += len(l.Events)
	}
	return n
}

// BenchmarkReplayFork replays a generated fork scenario whose root and
// child logs hold more than 10,000 events: 80 answered turns before the
// fork (inherited by the child as a seed of about 5,000 events), and a
// child answer of 1,500 chunks. "replay" is judge.Replay of a loaded
// fixture (derivation, the agent runtime, comparison, the transcript);
// "load+replay" adds reading the fixture, as agentsnap check does. Each
// reports events/s over the logs' events.
//
//	go test -run '^$' -bench BenchmarkReplayFork -benchtime 20x -benchmem ./harness
func BenchmarkReplayFork(b *testing.B) {
	dir, err := writeForkScenario(b.TempDir(), "ten-thousand", forkSpec{turns: 80, answerWords: 50, childWords: 1500})
	if err != nil {
		b.Fatal(err)
	}
	fx, err := fixture.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	events := countEvents(fx)
	if events < 10_000 || len(fx.Logs) != 2 || fx.Logs[1].Header.SeedLength == 0 {
		b.Fatalf("generated %d events in %d logs (child seedLength %d); want a fork child with a seed and 10,000 events or more", events, len(fx.Logs), fx.Logs[len(fx.Logs)-1].Header.SeedLength)
	}
	b.Logf("scenario: %d events (root %d, child %d with seedLength %d)", events, len(fx.Logs[0].Events), len(fx.Logs[1].Events), fx.Logs[1].Header.SeedLength)
	replay := func(b *testing.B, fx *fixture.Fixture) {
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
		if err != nil {
			b.Fatal(err)
		}
		if !o.Passed() || judge.CompareGolden(o).Message != "" {
			b.Fatalf("the replay does not match its recording:\n%s", o.Report())
		}
	}
	perSecond := func(b *testing.B) {
		b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			replay(b, fx)
		}
		perSecond(b)
	})
	b.Run("load+replay", func(b *testing.B) {
		for b.Loop() {
			fx, err := fixture.Load(dir)
			if err != nil {
				b.Fatal(err)
			}
			replay(b, fx)
		}
		perSecond(b)
	})
}
