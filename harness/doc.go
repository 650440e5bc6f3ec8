// Package harness makes agentsnap's judge (package judge) a test helper: it
// replays a recorded scenario with the runtime under test and fails the
// test when the replayed session logs differ from the fixture or the
// transcript of the agent tree differs from transcript.golden (compared
// through goldie). It is a thin adapter: loading is package fixture's,
// replaying and judging package judge's.
//
// In a Ginkgo suite:
//
//	opts := harness.Options{Runtime: myRuntime}
//	o := harness.Run(GinkgoTB(), "testdata/fixtures/fork/codeword", opts)
//	Expect(o).To(harness.MatchRecording())
//	Expect(o).To(harness.MatchGolden(GinkgoTB()))
//
// and in a plain go test, harness.Check(t, dir, opts) does the same. The
// replay driver's consumption check runs at cleanup. The runtime is
// required: a forgotten one fails the test instead of replaying another
// agent.
//
// A failure says what changed first and how to fix it, with commands that
// work where the test runs (go test -run; for a Ginkgo spec, go tool
// ginkgo --focus, or go test -ginkgo.focus in a module without the ginkgo
// tool). When
// the agent's requests drift from the recording (another system prompt,
// other tools, other settings, another conversation), that comes before any
// downstream difference:
//
//	fork/codeword: the replay does not match the recording in testdata/fixtures/fork/codeword
//
//	request drift: root (root session), model call 1 (turn 1 step 1): the system prompt changed (127 characters recorded, 137 now)
//	  The agent no longer sends what was recorded, so the recorded answers do not belong to it.
//
//	If the change is intended, re-record the scenario:
//	  go test ./myagent -run '^TestScenarios$' -record='^fork/codeword$'
//
// What the harness reports — failures, logs, the matchers' failure
// messages — shows the keys of the environment (the key variables, the
// base URL's credentials, the variables AGENTSNAP_SECRET_VARS names) and
// what the agent sent as a credential during the replay as [REDACTED], as
// agentsnap serve's verdict does.
//
// Flags exist only in test binaries (testing.Testing()): -record=REGEXP
// (or AGENTSNAP_RECORD) re-records the scenarios it matches with the
// runtime under test before replaying them; -schedule-seed=N replays one
// schedule of a failed schedule search; goldie's -update (or
// GOLDIE_UPDATE, AGENTSNAP_UPDATE) rewrites goldens — only goldens, never
// session logs, only from a replay that matched its recording, atomically,
// and under CI only with AGENTSNAP_FORCE_UPDATE=1; a session of the golden
// the replay no longer has goes with it, and the test's log warns of it,
// as of a child whose mode or fork seed changed (go test -v shows it).
package harness
