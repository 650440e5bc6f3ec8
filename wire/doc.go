// Package wire brings agentsnap to agents that talk to their model over
// HTTP — an agent on an SDK (openai-go, langchaingo, Eino, the openai npm
// package) that only lets you swap its HTTP client, or an agent in another
// language — with session-keyed replay, recording and logs.
//
// HTTP record/replay tools match requests globally: concurrent subagents
// collide, and a fork child's request repeats its parent's conversation.
// agentsnap knows which session makes each call, so each is served from
// that session's own script, exactly as for a runtime on llm.Driver.
//
// A Handler is an OpenAI-compatible endpoint (Chat Completions, streamed
// or whole) in front of an llm.Driver: the replay driver in CI, a playbook
// or a live model while recording. It writes each session's log from what
// crosses the wire, to the same contract as any runtime (CONTRACT.md):
//
//   - a request whose new message is a user message starts a turn;
//   - an answer with tool calls leaves the step open until the next
//     request brings one tool result per call, which ends it;
//   - an answer without tool calls ends the turn;
//   - a failed call ends the turn unless the next request retries it;
//   - a fork child's seed is its parent's completed turns, checked against
//     the child's first request (a mismatch names both), and seedLength
//     is stamped from it.
//
// Drift, the path check, the seed slice, routing by lineage and the goldens
// then hold for an SDK agent as for the reference runtime.
//
// The calling session is named explicitly, never guessed: in process, the
// context of a child's calls is made with Spawn or Fork from its parent's
// context; out of process, the Agentsnap-* headers name it. In a test,
// Runtime makes such an agent the runtime under test, handing it an
// *http.Client whose Transport serves every call in process — no socket:
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
//
// The wire format is one Format (ChatCompletions, in openai.go); another
// API, such as Anthropic's Messages streaming, is one more Format.
package wire
