package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/scenario"
)

// builtin is one built-in scenario: a scenario.json and playbook.json the
// kit writes, and what it checks on top of the common rules.
type builtin struct {
	name, category string
	description    string
	prompts        []string
	maxDepth       int
	turnTimeout    time.Duration
	// maxAttempts is scenario.json's maxAttempts; 0 means 1: no retry.
	maxAttempts int
	// hint says what a runtime whose recording fails in this scenario
	// most likely lacks; it follows the records rule's fix.
	hint string
	// sessions builds the playbook: answers per session key.
	sessions func(cfg *Config) map[string][]*playbook.Turn
	// rootEnds is the reason kind the root's first turn must end with
	// (error-turn, hang-turn); "" for none beyond the common rules.
	rootEnds, endRule string
	// replays is how many times the scenario is replayed; more than one
	// asks for identical bytes every time (deterministic).
	replays int
}

// Answer helpers keep the playbooks below readable.
func say(text string) *playbook.Turn { return &playbook.Turn{Text: text} }

func calls(tc ...playbook.ToolCall) *playbook.Turn { return &playbook.Turn{ToolCalls: tc} }

func spawn(cfg *Config, id, description, prompt string) playbook.ToolCall {
	return playbook.ToolCall{ID: id, Name: "subagent_spawn", Arguments: cfg.delegate(description, prompt)}
}

func fork(cfg *Config, id, description, prompt string) playbook.ToolCall {
	return playbook.ToolCall{ID: id, Name: "subagent_fork", Arguments: cfg.delegate(description, prompt)}
}

func tool(cfg *Config, id string) playbook.ToolCall {
	return playbook.ToolCall{ID: id, Name: cfg.Tool.Name, Arguments: cfg.Tool.Arguments}
}

// concurrentReplays is how often the concurrent scenario is replayed.
const concurrentReplays = 20

// builtins lists the built-in scenarios in the order they run.
var builtins = []*builtin{
	{
		name: "spawn", category: "spawn",
		description: "One spawn child: it starts with an empty conversation.",
		prompts:     []string{"Ask a spawned child to name a colour, then tell me its answer."},
		sessions: func(cfg *Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root":       {calls(spawn(cfg, "call_spawn", "Colour", "Name one colour. One word.")), say("The child said blue.")},
				"call_spawn": {say("blue")},
			}
		},
	},
	{
		name: "fork-first-turn", category: "fork",
		description: "A fork in the root's first turn: the child inherits nothing (seedLength 0).",
		prompts:     []string{"Fork a child to say hello, then repeat what it said."},
		sessions: func(cfg *Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root":      {calls(fork(cfg, "call_fork", "Hello", "Say hello.")), say("The child said hello.")},
				"call_fork": {say("hello")},
			}
		},
	},
	{
		name: "fork-later-turn", category: "fork",
		description: "Turn 1 is plain, turn 2 forks: the child inherits turn 1.",
		prompts: []string{
			"Remember: the codeword is MARMALADE. Reply OK.",
			"Fork a child to tell me the codeword, then repeat its answer.",
		},
		sessions: func(cfg *Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root":      {say("OK"), calls(fork(cfg, "call_fork", "Codeword", "What is the codeword?")), say("MARMALADE")},
				"call_fork": {say("MARMALADE")},
			}
		},
	},
	{
		name: "fork-after-tool-call", category: "fork",
		description: "Turn 1 calls a tool; turn 2 calls it again, then forks: the child inherits turn 1 with its tool/call and tool/result, not the running turn 2.",
		prompts: []string{
			"Use your tool once, then reply OK.",
			"Use your tool again, then fork a child to summarise, and repeat its answer.",
		},
		sessions: func(cfg *Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root": {
					calls(tool(cfg, "call_tool_1")), say("OK"),
					calls(tool(cfg, "call_tool_2")), calls(fork(cfg, "call_fork", "Summary", "Summarise what the tool said.")), say("Summarised."),
				},
				"call_fork": {say("The tool answered once.")},
			}
		},
	},
	{
		name: "fork-of-fork", category: "fork", maxDepth: 3,
		description: "A fork child forks again: the grandchild runs at depth 2.",
		prompts:     []string{"Reply OK.", "Fork a child that forks a grandchild to say hi, and repeat the answer."},
		sessions: func(cfg *Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root":            {say("OK"), calls(fork(cfg, "call_child", "Relay", "Fork a child to say hi, and repeat its answer.")), say("hi")},
				"call_child":      {calls(fork(cfg, "call_grandchild", "Hi", "Say hi.")), say("hi")},
				"call_grandchild": {say("hi")},
			}
		},
	},
	{
		name: "concurrent", category: "parallel", replays: concurrentReplays,
		description: "One step delegates to three children at once, spawn and fork mixed; every replay must write the same bytes.",
		prompts:     []string{"Reply OK.", "Ask three children at once: count, name a colour, recall the first reply."},
		sessions: func(cfg *Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root": {say("OK"), calls(
					spawn(cfg, "call_count", "Count", "Count to three."),
					fork(cfg, "call_recall", "Recall", "What did you reply first?"),
					spawn(cfg, "call_colour", "Colour", "Name one colour."),
				), say("1, 2, 3; OK; red.")},
				"call_count":  {say("1, 2, 3")},
				"call_recall": {say("OK")},
				"call_colour": {say("red")},
			}
		},
	},
	{
		name: "model-error", category: "errors", rootEnds: "error", endRule: ruleErrorTurn,
		description: "The model call of turn 1 fails: the turn ends error, and turn 2 goes on without the failed answer.",
		prompts:     []string{"Say hello.", "Say hello again."},
		sessions: func(*Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root": {{Text: "Hel", Error: &playbook.Error{Code: "SERVER", Message: "upstream connection reset"}}, say("Hello.")},
			}
		},
	},
	{
		name: "model-retry", category: "errors", maxAttempts: 2, rootEnds: "completed", endRule: ruleRetry,
		description: "The first model call of turn 1 fails; maxAttempts 2 allows one retry, which answers: attempts 1 and 2 of step 1, and the turn completes.",
		prompts:     []string{"Say hello."},
		hint:        "; here: the first model call fails (an error finish, code SERVER) and scenario.json's maxAttempts is 2, so the runtime must retry the step's call once, and the retry's answer completes the turn (a runtime that never retries skips model-retry: Config.Skip)",
		sessions: func(*Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root": {{Text: "Hel", Error: &playbook.Error{Code: "SERVER", Message: "upstream connection reset"}}, say("Hello.")},
			}
		},
	},
	{
		name: "hang-timeout", category: "errors", rootEnds: "aborted", endRule: ruleHangTurn, turnTimeout: 200 * time.Millisecond,
		description: "The model call of turn 1 hangs until the turn times out: the turn ends aborted, and turn 2 goes on.",
		prompts:     []string{"Say hello.", "Say hello again."},
		sessions: func(*Config) map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{
				"root": {{Text: "Hel", Hang: true}, say("Hello.")},
			}
		},
	},
}

// write writes the scenario's fixture folder, dir, without recordings.
func (b *builtin) write(dir string, cfg *Config) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("conformance: %w", err)
	}
	sc := &scenario.Scenario{
		Description: b.description,
		Prompts:     b.prompts,
		Agent:       cfg.Agent,
		MaxDepth:    b.maxDepth,
		TurnTimeout: scenario.Duration(b.turnTimeout),
		// A runtime that retries failed calls by default must not here
		// (but in model-retry): the playbook has one answer per call.
		MaxAttempts: max(b.maxAttempts, 1),
	}
	if err := sc.Save(dir); err != nil {
		return fmt.Errorf("conformance: %s: %w", b.name, err)
	}
	pb, err := json.MarshalIndent(&playbook.Playbook{Sessions: b.sessions(cfg)}, "", "  ")
	if err != nil {
		return fmt.Errorf("conformance: %s: playbook: %w", b.name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), append(pb, '\n'), 0o644); err != nil {
		return fmt.Errorf("conformance: %w", err)
	}
	return nil
}
