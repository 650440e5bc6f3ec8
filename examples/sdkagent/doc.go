// Package sdkagent is an agent built directly on the official OpenAI Go SDK
// (github.com/openai/openai-go/v3), written as a team would write it, and
// tested with agentsnap through the wire layer. The package itself imports
// nothing of agentsnap (a spec checks its dependency list); only its tests
// do. Read it in this order:
//
//  1. agent.go — the agent. Agent takes its openai.Client from the caller
//     (base URL, key, HTTP client, retries are the caller's business).
//     Session.Send runs one user turn: stream a Chat Completions call, run
//     the tools the model called, send their results back, until the
//     model answers without tools. subagent_spawn {prompt} starts a child
//     with an empty conversation; subagent_fork {prompt} a child that
//     inherits the parent's completed turns. The children of one answer
//     run concurrently; their results go back in call order. Settings a
//     deployment varies: Temperature, WholeAnswers (for an endpoint that
//     does not stream), MaxDepth, MaxSteps, and Tools of its own.
//
//  2. tools.go — the built-in tools, deterministic so a replay is
//     byte-stable: weather {city} from a fixed table, calculator
//     {expression} over numbers, + - * / and parentheses; and Tool, the
//     shape of a caller's own.
//
//  3. agentsnap_test.go — the only file that knows both the agent and
//     agentsnap: wire.Runtime("sdkagent", ...) builds the agent as
//     production does and runs the scenario's prompts through it. Its
//     settings are scenario.json's agent member, {"system", "maxDepth"};
//     the model name is the recording's (wire.Env.Model), so a live
//     recording sends AGENTSNAP_MODEL and a replay what was recorded.
//
// # What a team changes in its SDK agent
//
// Two things, both at the edges:
//
//  1. The client comes from the caller. The test hands the SDK
//     agentsnap's HTTP client and base URL
//     (option.WithHTTPClient(env.HTTPClient), option.WithBaseURL(env.BaseURL)),
//     which serve every model call in process: from the recording in a
//     replay, from playbook.json or the live model while recording. No
//     socket is opened.
//
//  2. Each child's model calls carry the child's identity. The wire layer
//     routes every call to its session's script and writes one log per
//     session, and it never guesses who is calling from timing or
//     content. The agent has a hook, Agent.ChildContext(ctx, callID,
//     fork), that derives a child's context from its parent's when the
//     child is created. Production leaves it nil (or uses it for a trace
//     span per subagent, which is where such a hook comes from); the test
//     sets it to wire.Fork / wire.Spawn. We chose the hook over importing
//     wire in the agent: the agent keeps no dependency on a test tool, and
//     the tagging is one function in the test. Importing wire in the
//     agent for the two calls would work as well and cost nothing at run
//     time: untagged contexts are the root session.
//
// The same hook serves an agent that talks to agentsnap serve from
// another process, which names each call's session in the Agentsnap-*
// headers instead: ChildContext puts the child's session in the context,
// and a client middleware (option.WithMiddleware) reads it from the
// request's context and sets the headers. agentsnap's own tests run this
// agent both ways: the wire tests in process (with a lookup tool of their
// own, whole answers, a temperature, and children left untagged for
// wire.InferLineage), the serve tests over HTTP with the headers.
//
// A fork child must send its parent's conversation up to the end of the
// parent's last completed turn, then its own prompt — what Session does.
// The wire layer checks that and stamps the child's seedLength from it.
//
// # Recording
//
// scenario.json (prompts, agent settings) and playbook.json (the model's
// answers per session: "root", or the id of the tool call that created a
// child) are written by hand; the logs and transcript.golden are recorded
// from the test binary, which re-records every fixture whose CATEGORY/NAME
// matches the pattern before replaying it:
//
//	AGENTSNAP_RECORD='.' go test ./examples/sdkagent/ -count=1
//	go test ./examples/sdkagent/ -count=1 -record='^fork/'
//
// With AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key (AGENTSNAP_API_KEY,
// OPENAI_API_KEY or DEEPSEEK_API_KEY) set, the answers come from that
// OpenAI-compatible model instead of the playbook; the key never reaches
// a fixture, and a failed live call refuses the recording. live_test.go
// does this against a scripted local server with recorder.Record and
// recorder.LiveOptions.
//
// # Replaying
//
// Every go test replays every fixture offline:
//
//	o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: runtime})
//	Expect(o).To(harness.MatchRecording())
//	Expect(o).To(harness.MatchGolden(GinkgoTB()))
//
// A changed system prompt, tool or conversation shows as Outcome.Drift at
// the first call that differs; a transcript change that is intended is
// taken with -update (or AGENTSNAP_UPDATE=1), which rewrites
// transcript.golden only from a replay that matches its recording.
package sdkagent
