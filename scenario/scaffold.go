package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
)

// Scaffold creates a new fixture folder root/CATEGORY/NAME holding an
// example scenario.json and a documented playbook.json, ready for
// "go tool agentsnap record", and returns its path. The spawn category gets a spawn
// example, every other category a fork example. It refuses an existing
// folder (the error wraps fs.ErrExist) and any name FixtureDir refuses. The
// folder appears whole or not at all: it is built under a temporary name
// and renamed into place. It also adds ProposalPattern to root/.gitignore
// (creating it, or appending the pattern once), so golden proposals
// waiting for review are never committed.
func Scaffold(root, name string) (string, error) {
	dir, err := FixtureDir(root, name)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("scenario: %s: %w; pick another name, or edit it and run: go tool agentsnap record %s", dir, fs.ErrExist, dir)
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
	if err := ignoreProposals(root); err != nil {
		return dir, fmt.Errorf("scenario: created %s, but %w; add the line %s to %s by hand", dir, err, ProposalPattern, filepath.Join(root, ".gitignore"))
	}
	return dir, nil
}

// ProposalPattern is the .gitignore pattern of golden proposals
// (transcript.golden.new), which "agentsnap review" accepts or rejects.
const ProposalPattern = "*.golden.new"

// ignoreProposals adds ProposalPattern to root/.gitignore unless a line
// already says it.
func ignoreProposals(root string) error {
	path := filepath.Join(root, ".gitignore")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, line := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(line) == ProposalPattern {
			return nil
		}
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "# golden proposals waiting for review: go tool agentsnap review\n" + ProposalPattern + "\n"
	return atomicfile.WriteFile(path, []byte(text), 0o644)
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
    "Record with: go tool agentsnap record DIR (the reference runtime; live: --live --base-url URL --model M), or for your own runtime from its tests: AGENTSNAP_RECORD=CATEGORY/NAME go test ./..."
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
