// Package vercelai is an agent on the Vercel AI SDK (ai, @ai-sdk/openai,
// @ai-sdk/anthropic, @ai-sdk/google) tested with agentsnap: agent.mjs, a
// desk whose research tool asks another model with streamText (two such
// tools at once in one step) inside a multi-step loop (stopWhen), replayed
// out of process by "agentsnap serve". Its model speaks Chat Completions
// by default; its third argument (or AGENT_API) picks another provider:
// responses (@ai-sdk/openai's default, the Responses API), anthropic
// (Messages) or google (the Gemini API). The fixtures under apis/ were
// recorded in those, live against aimock (apis_test.go), and each replays
// with the provider that spoke its API.
// It holds no Go code of its own; its tests (package vercelai_test, label
// "node") build the agentsnap binary, serve each fixture under
// fixtures/CATEGORY/NAME, run the agent against the URL serve prints, stop
// serve with SIGINT and read its verdict.
//
// The agent names its sessions with the agentsnap-lineage helper
// (js/agentsnap-lineage): its provider sends every call through
// lineageFetch, and the research tool is wrapped in childTool, so each run
// of it is a child session named by the toolCallId its execute gets.
//
// With "researcherStream": false in a scenario's agent settings the
// researchers ask for whole answers (generateText), which the AI SDK
// retries on a 429 or 5xx; with AGENT_ATTEMPTS_LOG set, the agent logs
// each HTTP attempt of a model call to that file, for the specs to time
// those retries.
//
// Set up once (CI's .ci/run does it): npm ci --prefix examples/vercel-ai.
// Re-record a fixture from its playbook.json:
//
//	AGENTSNAP_RECORD='parallel/compare-releases' go tool ginkgo ./examples/vercel-ai
//
// (add "-- -update" to accept the new transcript at once), or by hand:
// agentsnap serve DIR --record --runtime vercel-ai, run node agent.mjs URL
// DIR, then Ctrl-C serve. The apis/ fixtures are re-recorded against
// aimock (npm ci --prefix internal/aimock):
//
//	AGENTSNAP_RECORD='^apis/' go tool ginkgo ./examples/vercel-ai -- -update
package vercelai
