// Package loop is agentsnap's reference in-process agent runtime (package
// agent exports it as agent.Reference): a loop
// that streams a model's answer, runs the tools it calls and delegates to
// subagents, writing every step to a session log through a
// persistence.Store. It is what the recorder records and what the harness
// replays, and a model for a team wiring agentsnap into its own runtime.
//
// One user turn runs as
//
//	turn/start, user/message,
//	  step/start, request/header, assistant/chunk..., assistant/message,
//	  tool/call..., tool/result..., step/end,       (repeated while the model calls tools)
//	turn/end
//
// The built-in tools [SpawnTool] and [ForkTool] run a child session in
// process and return its final text as the tool result. A spawn child starts
// with an empty conversation; a fork child starts with its parent's balanced
// completed-turn prefix (session.CompletedPrefix) and its header's seedLength
// records where that prefix ends. Several subagent calls of one step run
// concurrently; their results are appended in call order, so a log's bytes
// never depend on scheduling.
//
// The clock and the session ids are injectable (Config.Clock, Config.IDs) so
// tests are deterministic.
package loop
