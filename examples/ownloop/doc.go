// Package ownloop is a team's own Go agent loop tested with agentsnap: a
// second runtime, written without agentsnap's reference runtime (package
// agent), that a team can copy. Read it in this order:
//
//  1. runtime.go — the seam. Runtime implements agentsnap.Runtime (Run),
//     agentsnap.Named ("ownloop", stored in scenario.json as
//     recorded.runtime, so no other runtime replays its fixtures) and
//     agentsnap.Validator. scenario.json's agent member is ownloop's own
//     format, {"persona", "tools", "maxDepth"}: unknown members are
//     warnings naming the closest setting, unknown tools are errors.
//
//  2. loop.go — the loop, written to the session-log contract through
//     package journal, which implements it: per prompt (Env.EachPrompt,
//     which applies turnTimeout) StartTurn; per step StartStep, BeginCall
//     (it fills the request's session lineage, which the replay routes
//     by), Stream from Env.Driver, Chunk, End; ToolCalls, ToolResult in
//     call order, EndStep; EndTurn once the model calls no tool. A model
//     error ends the turn as error. A cancel while the model streams
//     abandons the call (Call.Abandon: no finish recorded) and ends the
//     turn aborted — the way dsh records a user's cancel, which replays as
//     a hang entry.
//
//  3. tools.go — the tools: convert {amount, from, to} over a fixed rate
//     table, wordcount {text}, and delegation with ownloop's own schema,
//     subagent_spawn / subagent_fork {task}. The delegations of one step
//     run concurrently, one goroutine and one journal.Child each; results
//     are recorded in call order, so a log's bytes never depend on
//     scheduling.
//
// Its fixtures are under testdata/fixtures/CATEGORY/NAME: scenario.json and
// playbook.json are written by hand and recorded from the test binary,
//
//	go test ./examples/ownloop -record='^fork/budget-recall$'
//	AGENTSNAP_RECORD='.' go test ./examples/ownloop/   # every fixture
//
// (harness.Run records first when the pattern matches CATEGORY/NAME). Every
// test run then replays them offline:
//
//	o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: ownloop.Runtime{}})
//	Expect(o).To(harness.MatchRecording())
//	Expect(o).To(harness.MatchGolden(GinkgoTB()))
//
// The specs also show a fork replay failing without the seed slice, a live
// recording against a local OpenAI-compatible server replayed offline, and
// the conformance kit run against this runtime.
package ownloop
