// Package wire brings agentsnap to agents that talk to their model over
// HTTP — an agent on an SDK (openai-go, langchaingo, Eino, the openai npm
// package, the OpenAI Agents SDK, the Vercel AI SDK) that only lets you
// swap its HTTP client, or an agent in another language — with
// session-keyed replay, recording and logs.
//
// HTTP record/replay tools match requests globally: concurrent subagents
// collide, and a fork child's request repeats its parent's conversation.
// agentsnap knows which session makes each call, so each is served from
// that session's own script, exactly as for a runtime on llm.Driver.
//
// A Handler is a model endpoint in front of an llm.Driver — the replay
// driver in CI, a playbook or a live model while recording — that speaks
// each API of its Formats (ChatCompletions, …) streamed or whole. It writes
// each session's log from what crosses the wire, to the same contract as
// any runtime (CONTRACT.md), recording every model call as it was sent,
// never refusing a conversation for its shape:
//
//   - a request that goes on from the session's last one with the tool
//     results of its answer is the turn's next step; the results are
//     recorded in the order of the calls, whatever order they came in;
//   - a request after a finished turn starts a turn with every user
//     message it ends with (a context message and the question, say);
//   - a request whose conversation is not the log's — rewritten,
//     reordered, split into one assistant message per tool call, merged,
//     truncated, compacted, or an agent without memory that sends only its
//     new question — is recorded as sent: a history/replace before its step
//     says what it kept and what it sent instead;
//   - an answer without tool calls ends the turn; a failed call ends it
//     unless the next request retries it;
//   - a fork child's seed is its parent's completed turns when the child
//     is created, stamped as seedLength, however the child's first request
//     renders them (that request is recorded as sent);
//   - the request's settings (temperature, max_tokens, tool_choice, …)
//     are recorded with it and reach a live model of the same API as sent.
//
// Drift, the path check, the seed slice, routing by lineage and the goldens
// then hold for an SDK agent as for the reference runtime: drift compares
// each call's request with the recorded one — every message, the tools,
// the settings — and names the first difference.
//
// The calling session is named explicitly, never guessed: in process, the
// context of a child's calls is made with Spawn or Fork from its parent's
// context; out of process, the Agentsnap-* headers name it. A call with
// neither is the root's. For an agent that names no sessions, Infer (the
// option InferLineage, agentsnap serve --lineage=infer) tells a child by
// the open tool call whose arguments hold its prompt, and records the
// lineage it found like any other. In a test, Runtime makes such an agent
// the runtime under test, handing it an *http.Client whose Transport
// serves every call in process — no socket:
//
//	var sdkAgent = wire.Runtime("my-sdk-agent", func(ctx context.Context, env *wire.Env) error {
//		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient))
//		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
//			return myAgent(client).Run(ctx, prompt) // children: wire.Spawn(ctx, callID), wire.Fork(ctx, callID)
//		})
//	})
//
// For an agent in another process, "agentsnap serve DIR" puts a Handler
// on loopback.
package wire
