package recorder_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
)

// ExampleRecord records a new scenario offline, from its playbook: the
// scenario and the model's authored answers go in, the session logs, the
// transcript golden and the recording metadata come out. Recording again
// from the same playbook comes out byte for byte the same, so nothing is
// written.
func ExampleRecord() {
	root, err := os.MkdirTemp("", "recorder-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	// What agentsnap new does: scenario.json and playbook.json to edit.
	dir, err := fixture.Scaffold(filepath.Join(root, "fixtures"), "spawn/first")
	if err != nil {
		fmt.Println(err)
		return
	}

	for i := range 2 {
		// Options serve one recording: their playbook driver counts turns.
		opts, err := recorder.PlaybookOptions(dir, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		opts.Runtime = agent.Reference
		res, err := recorder.Record(context.Background(), dir, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(fixture.Name(dir), "sessions:", res.Sessions, "model calls:", res.Calls, "unchanged:", res.Unchanged)
		fmt.Println(" ", res.Files)
		if i == 0 {
			golden, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Print(string(golden))
		}
	}
	// Output:
	// spawn/first sessions: 2 model calls: 3 unchanged: false
	//   [scenario.json session.1.jsonl session.jsonl transcript.golden]
	// == root ==
	// turn 1 (user)
	//   user: Use subagent_spawn once to have a child name the largest planet, then reply with its answer.
	//   step 1
	//     call call_spawn_1 subagent_spawn {"description":"Largest planet","prompt":"Which planet of the solar system is the largest? Reply with its name only."}
	//     result call_spawn_1: Jupiter
	//   step 2
	//     assistant: Jupiter
	//   ended completed
	//
	// == session 1: spawn of root via call_spawn_1, depth 1 ==
	// turn 1 (subagent)
	//   user: Which planet of the solar system is the largest? Reply with its name only.
	//   step 1
	//     assistant: Jupiter
	//   ended completed
	// spawn/first sessions: 2 model calls: 3 unchanged: true
	//   [scenario.json session.1.jsonl session.jsonl transcript.golden]
}
