// Package openaiagentsjs is an agent on the OpenAI Agents SDK for JS
// (@openai/agents) tested with agentsnap: agent.mjs, a coordinator that
// runs a researcher agent as a tool (agent.asTool(), two at once) and hands
// off to a writer agent (handoffs), replayed out of process by "agentsnap
// serve". It holds no Go code of its own; its tests (package
// openaiagentsjs_test, label "node") build the agentsnap binary, serve each
// fixture under fixtures/CATEGORY/NAME, run the agent against the URL serve
// prints, stop serve with SIGINT and read its verdict.
//
// The agent names its sessions with the agentsnap-lineage helper
// (js/agentsnap-lineage): its OpenAI client sends every call through
// lineageFetch, and the researcher tool is wrapped in childTool, so each run
// of it is a child session named by the function call's call id. A handoff
// is no child: the writer goes on in the same session, under its own
// instructions.
//
// Set up once (CI's .ci/run does it): npm ci --prefix examples/openai-agents-js.
// Re-record a fixture from its playbook.json:
//
//	AGENTSNAP_RECORD='parallel/compare-releases' go tool ginkgo ./examples/openai-agents-js
//
// (add "-- -update" to accept the new transcript at once), or by hand:
// agentsnap serve DIR --record --runtime openai-agents-js, run node agent.mjs
// URL DIR, then Ctrl-C serve.
package openaiagentsjs
