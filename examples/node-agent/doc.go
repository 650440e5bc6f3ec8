// Package nodeagent is an agent in another language tested with agentsnap:
// agent.mjs, a small agent on the official openai npm package, replayed out
// of process by "agentsnap serve". It holds no Go code of its own; its
// tests (package nodeagent_test, label "node") build the agentsnap binary,
// serve each fixture under fixtures/CATEGORY/NAME, run the agent against
// the URL serve prints, stop serve with SIGINT and read its verdict.
//
// The agent names each model call's session in headers (Agentsnap-Session,
// and for a child Agentsnap-Parent, Agentsnap-Call, Agentsnap-Mode), runs
// its children at once (Promise.all) and sends tool results back in call
// order; a fork child sends its parent's conversation up to the parent's
// last completed turn, then its prompt.
//
// It keeps the SDK's default retries. A scenario whose agent settings say
// "stream": false has it ask for whole answers: a failed one is a status
// the SDK retries, and serve answers a replayed failure so that it does
// so at once (fixtures/errors/rate-limited, retry_test.go). With
// AGENT_ATTEMPTS_LOG set, the agent logs each HTTP attempt to that file,
// for the specs to time its retries.
//
// Set up once (CI's .ci/run does it): npm ci --prefix examples/node-agent.
// Re-record a fixture from its playbook.json:
//
//	AGENTSNAP_RECORD='mixed/delegation' go tool ginkgo ./examples/node-agent
//
// or by hand: agentsnap serve DIR --record --runtime node-agent, run
// node agent.mjs URL DIR, then Ctrl-C serve.
package nodeagent
