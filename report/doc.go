// Package report renders agentsnap scenario results as one self-contained
// HTML page, for a reviewer's browser or a CI artifact.
//
// The page loads nothing: styles and a few lines of script are inline, and
// it works opened from disk. It shows a status summary with every scenario
// linked, then each scenario's agent tree — the root and its spawn and fork
// children nested by lineage, with mode, parent call, depth and seedLength —
// every turn, step, tool call and result, and the tokens of each model call
// with totals per tree. A fork child's inherited prefix is collapsed under
// a label such as "inherited from root: 12 events, turn 1".
//
// A scenario that fails (or waits for review, or errored with logs on both
// sides) is expanded and shows golden and replay side by side. Sessions
// pair by lineage (a child is its parent and the call that created it),
// and within a session blocks (a turn's opening, each step, a turn's end)
// pair by content rather than by line or step number, so one inserted step
// shows as a gap on the golden side and the steps after it still line up.
// The first divergence carries the class "divergence" and the id
// "s<N>-first-divergence" (N counts scenarios from 1); the summary links to
// it.
//
// The package knows nothing of the CLI or the harness: fill a [Scenario]
// per scenario and call [Write].
package report
