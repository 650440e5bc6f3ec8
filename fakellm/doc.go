// Package fakellm replays recorded model calls: it is the [llm.Driver] of
// every CI run, with no network and no key.
//
// Each recorded session gets its own script, derived from its own events
// only — events[seedLength:] — so a fork child never replays the parent
// answers it inherited in its seed ([Derive], [DeriveLog], [DeriveFile]).
// One [Entry] is one model call: the assistant/chunk events of one
// (turn, step, attempt), closed by its finish chunk.
//
// A [Driver] routes every Stream call by lineage, not by timing: the live
// root session gets the recorded root's script, and a live child gets the
// recorded child whose parent is bound to the live parent and whose
// parentCallId equals the live child's. Binding a live session to a script
// and advancing its cursor happen at call time under one lock, so children
// that run concurrently replay the same way under any goroutine schedule.
//
// Every call that cannot be served fails with an error that names the
// session, its lineage and the command that re-records the scenario, and is
// also kept for [Driver.Check], the consumption check a harness runs at
// teardown:
//
//	fx, err := fixture.Load("fixtures/fork/codeword")
//	Expect(err).NotTo(HaveOccurred())
//	drv, err := fakellm.New(fx.Logs, fakellm.WithOverride(fx.Override))
//	Expect(err).NotTo(HaveOccurred())
//	DeferCleanup(drv.Check)
//
// An override sidecar (replay.override.json in a fixture folder) can replace a session's
// script or patch entries of it with authored ones: chunks, throw (an error
// finish with a code) and hang (until the call's context is cancelled); see
// [Override].
//
// [WithCallCheck] shows a caller each recorded call before it is replayed,
// with its recorded request/header, and lets it refuse the call: a
// recorder that replays what still matches and records the rest live
// refuses every call whose request changed.
//
// A call recorded with an aborted finish (its context ended while it
// streamed) replays as it happened: its chunks before the finish, then a
// wait until the replayed call's context ends, then the aborted finish —
// as a hang does ([Entry.Waits]). With [WithVirtualTime] the timeouts a
// runtime makes through [Driver.WithTimeout] run in the replay's time,
// which passes only when every call in flight waits that way and nothing
// recorded before those waits is left to do, so a hang's timeout fires at
// once, in the order it did; [Driver.Waiting] says what a replay that does
// not end waits for.
package fakellm
