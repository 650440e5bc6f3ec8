package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
)

// Scaffold creates a new fixture folder root/CATEGORY/NAME holding an
// example scenario.json and a documented playbook.json, ready for
// "agentsnap record", and returns its path. The spawn category gets a spawn
// example, every other category a fork example. It refuses an existing
// folder (the error wraps fs.ErrExist) and any name FixtureDir refuses. The
// folder appears whole or not at all: it is built under a temporary name
// and renamed into place.
func Scaffold(root, name string) (string, error) {
	dir, err := FixtureDir(root, name)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("scenario: %s: %w; pick another name, or edit it and run: agentsnap record %s", dir, fs.ErrExist, dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("scenario: %w", err)
	}
	category := filepath.Base(filepath.Dir(dir))
	sc, playbook := exampleFork()
	if category == "spawn" {
		sc, playbook = exampleSpawn()
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".new-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := sc.Save(tmp); err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(filepath.Join(tmp, PlaybookFile), []byte(playbook), 0o644); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// exampleAgent is the agent of both examples, in the reference runtime's
// terms (preset, system prompt, tools from its catalogue).
func exampleAgent() json.RawMessage {
	return json.RawMessage(`{"preset":"default","system":"You are a careful assistant. When asked to delegate, use the subagent tools.","tools":["subagent_spawn","subagent_fork"]}`)
}

// playbookDoc is the "_doc" member that explains playbook.json to its author;
// childKey is the example's child session key.
func playbookDoc(childKey string) string {
	return `  "_doc": [
    "playbook.json: the model's answers, authored, so 'agentsnap record' works with no key and no network.",
    "sessions.root lists the root session's model answers in order: one per model call (each step of each turn).",
    "A child session is keyed by the id of the tool call that creates it (here ` + childKey + `).",
    "An answer has text, reasoning, toolCalls [{id, name, arguments}], and optionally usage, finish (stop, tool-calls, max-tokens),",
    "error {code, message} (the stream fails after its text) or hang (the stream waits until the turn times out: set turnTimeout in scenario.json).",
    "Record with: agentsnap record DIR; with a live model: agentsnap record DIR --live --base-url URL --model M"
  ],
`
}

func exampleFork() (*Scenario, string) {
	sc := &Scenario{
		Description: "The parent learns a fact in turn 1 and forks in turn 2; the fork child answers from the inherited turn.",
		Prompts: []string{
			"Remember this for later: the project codeword is MARMALADE. Reply with the single word OK.",
			"Use subagent_fork once to ask a forked child for the project codeword, then reply with the child's answer.",
		},
		Agent:    exampleAgent(),
		MaxDepth: 2,
	}
	return sc, "{\n" + playbookDoc("call_fork_1") + `  "sessions": {
    "root": [
      {"text": "OK"},
      {
        "reasoning": "The user wants a forked child to recall the codeword.",
        "toolCalls": [
          {"id": "call_fork_1", "name": "subagent_fork", "arguments": {"description": "Recall the codeword", "prompt": "What is the project codeword? Reply with that one word."}}
        ]
      },
      {"text": "MARMALADE"}
    ],
    "call_fork_1": [
      {"text": "MARMALADE"}
    ]
  }
}
`
}

func exampleSpawn() (*Scenario, string) {
	sc := &Scenario{
		Description: "The parent delegates a self-contained task to a spawned child and reports its answer.",
		Prompts: []string{
			"Use subagent_spawn once to have a child name the largest planet, then reply with its answer.",
		},
		Agent:    exampleAgent(),
		MaxDepth: 2,
	}
	return sc, "{\n" + playbookDoc("call_spawn_1") + `  "sessions": {
    "root": [
      {
        "toolCalls": [
          {"id": "call_spawn_1", "name": "subagent_spawn", "arguments": {"description": "Largest planet", "prompt": "Which planet of the solar system is the largest? Reply with its name only."}}
        ]
      },
      {"text": "Jupiter"}
    ],
    "call_spawn_1": [
      {"text": "Jupiter"}
    ]
  }
}
`
}
