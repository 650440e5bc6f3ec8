// Package journal writes session logs to agentsnap's session-log contract,
// so a Go runtime of your own records and replays like the reference one
// (package agent, which is built on it). CONTRACT.md at the module root
// lists every event, when it is written and its payload; this package is
// that contract as calls.
//
// One [Journal] writes one session. The calls follow the shape of a turn:
//
//	j, err := journal.NewRoot(ctx, journal.Config{Store: env.Store, Clock: env.Clock, Cwd: env.Cwd})
//	j.StartTurn(journal.TriggerUser, journal.UserText(prompt)) // turn/start, user/message
//	for {
//		j.StartStep()                                          // step/start
//		req := &llm.Request{Model: model, System: system, Tools: tools}
//		call, err := j.BeginCall(ctx, provider, req)           // request/header; fills req.Session, Turn, Step, Attempt, Messages
//		stream, err := driver.Stream(ctx, req)
//		for c := range llm.Normalize(ctx, stream) {
//			call.Chunk(c)                                      // assistant/chunk
//		}
//		msg, finish := call.End()                              // assistant/message, unless the call failed
//		// a retryable error finish: BeginCall again (attempt 2, ...)
//		calls := msg.ToolCalls()
//		j.ToolCalls(ctx, calls)                                // tool/call, one per call
//		// run the tools; a subagent tool calls j.Child(ctx, call.ID, session.ModeSpawn or ModeFork)
//		// and runs the child's turn with journal.TriggerSubagent
//		for _, c := range calls {
//			j.ToolResult(c.ID, c.Name, text, isError)          // tool/result, in call order
//		}
//		j.EndStep(ctx)                                         // step/end
//		if len(calls) == 0 {
//			break
//		}
//	}
//	j.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted}) // turn/end
//
// A Journal numbers turns, steps and attempts, keeps the conversation a
// model call sends ([Journal.Messages]) with a digest per message, and
// flushes to the store at the end of each phase (BeginCall, ToolCalls,
// EndStep, EndTurn): a child finds the call that created it stored, and a
// crash loses at most the events since the last of those. Once stored,
// events are the store's: the journal lets them go, so its memory grows
// with the conversation, not with the log, and [Journal.Events] and a fork
// child's seed read them back from the store.
// [Journal.Child] creates a subagent's session — a fork child with its
// parent's completed turns and seedLength stamped — and [Resume] continues
// a stored one with its header as stored. [Journal.Emit] appends events of
// your own types, which readers keep and replay ignores.
//
// The session's own goroutine makes the writing calls; Child, Events and
// Header may be called from other goroutines (children of one step are
// created concurrently).
package journal
