// Package harness replays a recorded scenario and judges it: the runtime runs
// the scenario's prompts against a fakellm driver built from the fixture's
// own logs, every replayed session log is compared with its fixture after
// normalisation (times, creation times, machine paths, session ids), and the
// transcript of the whole agent tree is compared with transcript.golden
// through goldie.
//
// In a Ginkgo suite:
//
//	o := harness.Run(GinkgoTB(), "fixtures/fork/codeword")
//	Expect(o).To(harness.MatchRecording())
//	Expect(o).To(harness.MatchGolden(GinkgoTB()))
//
// and in a plain go test, harness.Check(t, dir) does the same. The replay
// driver's consumption check runs at cleanup.
//
// A failure says what changed first and how to fix it. When the agent's
// requests drift from the recording (another system prompt, other tools,
// another conversation), that comes before any downstream difference:
//
//	fork/codeword: the replay does not match the recording in fixtures/fork/codeword
//
//	request drift: root (root session), model call 1 (turn 1 step 1): the system prompt changed (127 characters recorded, 137 now)
//	  The agent no longer sends what was recorded, so the recorded answers do not belong to it.
//
//	log differences [golden = the fixture, replay = this run]:
//	  session 1 (fork of root via call_fork_1): seq 3 (request/header): data.systemChars: golden 127, replay 137
//
//	If the change is intended, re-record the scenario:
//	  agentsnap record fixtures/fork/codeword
//
// A transcript that differs shows a [diff -golden +replay] and the command
// that updates the golden. Goldie's -update flag (or GOLDIE_UPDATE,
// AGENTSNAP_UPDATE) rewrites goldens — only goldens, never session logs, only
// from a replay that matched its recording, atomically, and under CI only
// with AGENTSNAP_FORCE_UPDATE=1.
package harness
