package judge_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
)

// ExampleReplay replays a committed fixture with the runtime that recorded
// it and reads the verdict — the logs, then the golden — without a test.
func ExampleReplay() {
	fx, err := fixture.Load("../fixtures/spawn/one-child")
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("matches the recording:", o.Passed(), "sessions:", len(o.Replayed), "model calls:", o.Calls)
	// DiffGolden writes nothing; CompareGolden (agentsnap check) also keeps
	// a proposal beside a golden that differs, for agentsnap review.
	g := judge.DiffGolden(o)
	fmt.Println("golden:", filepath.Base(g.Path), "matches:", g.Message == "")
	// Output:
	// matches the recording: true sessions: 2 model calls: 3
	// golden: transcript.golden matches: true
}

// ExampleOutcome_Err shows the verdict when the agent now sends another
// request than the recorded one: the scenario's system prompt was edited
// after recording (in a copy, since a replay's golden step may write beside
// the fixture), so the recorded answers no longer belong to it. Report, the
// error's message, says the same and ends with the command that re-records.
func ExampleOutcome_Err() {
	dir, err := os.MkdirTemp("", "judge-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	dir = filepath.Join(dir, "one-child")
	if err := os.CopyFS(dir, os.DirFS("../fixtures/spawn/one-child")); err != nil {
		fmt.Println(err)
		return
	}
	sc := filepath.Join(dir, "scenario.json")
	b, err := os.ReadFile(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	b = []byte(strings.Replace(string(b), "You are a careful assistant.", "You are a terse assistant.", 1))
	if err := os.WriteFile(sc, b, 0o644); err != nil {
		fmt.Println(err)
		return
	}

	fx, err := fixture.Load(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("matches the recording:", o.Passed(), errors.Is(o.Err(), judge.ErrMismatch))
	fmt.Println("drift:", o.Drift)
	for _, d := range o.Differences {
		fmt.Println("difference:", d)
	}
	// Output:
	// matches the recording: false true
	// drift: root (root session), model call 1 (turn 1 step 1): the system prompt changed (127 characters recorded, 125 now)
	// difference: session 1 (spawn of root via call_spawn_1): seq 3 (request/header): data.systemChars: golden 127, replay 125
}
