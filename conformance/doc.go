// Package conformance tests a team's own agent runtime against the
// session-log contract, the way testing/fstest.TestFS tests a file system:
// give it a factory for the runtime, and it records a fixed battery of
// scenarios with it (from authored playbooks: no model, no network),
// checks every recorded log against the contract, replays each recording
// with a fresh runtime, and names every rule the runtime breaks — not only
// the first — each with what to change.
//
// In the runtime's own test:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Config{
//			New:   func() agentsnap.Runtime { return myagent.New() },
//			Agent: json.RawMessage(`{"tools": ["subagent_spawn", "subagent_fork", "search"]}`),
//			Tool:  conformance.ToolCall{Name: "search", Arguments: json.RawMessage(`{"q": "go"}`)},
//			Skip:  []string{"hang-timeout"}, // logged, never silent
//		})
//	}
//
// Run the test with -race: the scenario concurrent runs three children of
// one step at once, and a runtime that writes one session's journal from
// two goroutines (each child writing its tool/result into its parent, say)
// shows there as a data race, while its logs may break no rule in a given run.
//
// A runtime that numbers a fork child's turns from 1 fails with:
//
//	conformance: 12 violation(s) of the session-log contract in 4 of 8 scenario(s) (hang-timeout skipped):
//	  fork-later-turn: turn-numbering: session.1.jsonl (root/call_fork): the fork child's first own turn (turn/start at seq 12) is numbered 1; it must continue after the 1 inherited turn(s): turn 2
//	      fix: number turns from 1 in a root or spawn child, and in a fork child continue after the last inherited turn (journal.LastTurn of the seed, plus one); ...
//	  fork-later-turn: replay-matches: the replay differs from the recording:
//	      ...
//	the recordings are kept in /tmp/agentsnap-conformance-1234; agentsnap inspect /tmp/agentsnap-conformance-1234/CATEGORY/NAME shows one scenario's session tree
//
// A broken rule usually breaks the replay too; replay-matches then follows
// with the replay's own report. Fix the named rules first. The kit records
// every scenario afresh, so a replay that fails is the runtime's doing, not
// a stale recording's: its report says what to look at in the runtime and
// names no command to re-record or update. A log the replay refuses before
// it starts (a call without its finish, a chunk against the contract, a
// seed cut inside a turn) is named by file and line as what the runtime
// wrote wrong.
//
// The kit keeps the keys of the shell it runs in out of its recordings
// and its messages, as -record does: the key variables, the base URL's
// credentials, the variables AGENTSNAP_SECRET_VARS names and what the
// runtime sends as a credential. A recording that would hold one breaks
// records, naming the variable; every violation shows one as [REDACTED].
//
// The scenarios (Scenarios): spawn; fork-first-turn (a fork in turn 1
// inherits nothing); fork-later-turn; fork-after-tool-call (the seed holds
// turn 1's tool call and result, not the running turn's); fork-of-fork (a
// grandchild at depth 2); concurrent (three children of one step, spawn
// and fork mixed, replayed 20 times); model-error (a failed model call);
// model-retry (a failed call retried once: maxAttempts 2); hang-timeout (a
// call that hangs until turnTimeout).
//
// The rules, by the id a violation names:
//
//	records               the recording completes: Run returns nil, the playbook's answers are all used, no tool fails
//	seq-dense             seqs 0..n-1 in every log (the store refuses anything else)
//	header-root           the root has no parentSession, parentCallId, mode, origin or seedLength, and depth 0
//	header-child          parentSession, parentCallId (the creating tool/call), mode (spawn|fork, as the tool),
//	                      origin "subagent", delegationDepth = parent's + 1
//	seed-stamped          a fork child's seedLength is its parent's completed-turn prefix at the fork; a spawn child's is 0
//	seed-verbatim         a fork child's log starts with those parent events, same type, seq and data
//	turn-numbering        own turns continue after the inherited ones, consecutively; every event carries its turn
//	turn-shape            turn/start{turn, trigger}, user/message, steps, turn/end{turn, reason.kind}
//	step-numbering        steps 1.. per turn, each step/start..step/end, events inside carry the step
//	request-header        one request/header before each model call: its turn/step/attempt, and the messages it
//	                      digests are the conversation of the events before it (journal.Conversation)
//	attempt-numbering     a step's model calls are attempts 1, 2, … in their request/headers, each retry one more
//	one-finish            each call's chunks end with exactly one finish
//	assistant-message     an assistant/message after each call that did not fail or abort, none after one that did
//	usage                 each call that answered keeps its stream's usage chunk, and its assistant/message the same usage
//	tool-results-in-order one tool/call per tool-call part, the tool/results in the order of the calls
//	recorded-tool         a recorded tool's tool/recorded answers one of its step's tool/calls, once, before its tool/result
//	error-turn            model-error: the turn ends "error"
//	retry                 model-retry: the failed call is retried in the same step, and the turn completes
//	hang-turn             hang-timeout: the turn ends "aborted"
//	replay-matches        a replay with a fresh runtime matches the recording (judge.Replay)
//	golden-matches        its transcript matches the recorded transcript.golden
//	deterministic         concurrent: every replay writes the same bytes
//
// The runtime must offer the tools subagent_spawn and subagent_fork (Config.Agent
// says how; Config.DelegateArgs shapes their arguments) and read the
// scenario settings maxDepth, turnTimeout (through Env.EachPrompt) and
// maxAttempts. Check is the same verdict as a value, for tests of the kit.
package conformance
