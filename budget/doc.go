// Package budget counts what a recorded agent tree spent: tokens per model
// call, per session and per tree, and their cost under per-model prices.
//
// Where the numbers come from. Each model call (each attempt, retries
// included, as session.ModelCalls counts them: by request/header) is one
// [Call]. Its tokens are the usage of its assistant/message
// when the call ended with one (stop, tool-calls, max-tokens), else the last
// usage chunk of its stream (a call that failed or was aborted after the
// provider reported usage), else none: the call is unreported and counts
// zero tokens ([Session.Unreported] says how many). An event that may hold
// usage and does not decode is named in [Session.Unread] and not counted;
// [Usage.Check] then fails, as the counts may be short. Only a session's own
// events count: a fork child's inherited seed holds its parent's calls,
// which the parent already counts.
//
// What the numbers mean. They follow the OpenAI usage fields the recorder
// stores: Input counts every prompt token, cache reads included, and
// Output every completion token, reasoning included. So
// [Tokens.Total] is Input + Output, and CacheRead and Reasoning are parts of
// them, not additions.
//
// Cost. [Prices] map a model (the model member of each call's
// request/header) to a [Price] per million tokens, as scenario.json's
// prices member holds them:
//
//	"prices": {"gpt-4o-mini": {"input": 0.15, "output": 0.6, "cacheRead": 0.075}}
//
// A call costs (Input-CacheRead)×input + CacheRead×cacheRead + Output×output,
// per million; a price without cacheRead charges cache reads as input. A
// call whose model has no price is an error that names it. The currency is
// the prices'.
//
// Bounds. [Usage.Check] tests a [Limit]: the tree's tokens or cost, any
// session's tokens, and growth over a baseline recording ([Compare]): the
// tree's cost when prices are given, else its total tokens. "agentsnap check
// --max-growth SHARE --baseline DIR" applies the same comparison to every
// scenario; the Gomega matcher is tree.WithinBudget in package harness/tree.
package budget
