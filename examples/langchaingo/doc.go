// Package langchaingo is agentsnap's adoption kit for agents built on
// langchaingo (github.com/tmc/langchaingo): an agent as a langchaingo team
// writes it, tested unchanged through the wire layer. It is a module of its
// own, so agentsnap's go.mod gains no framework. Read it in this order:
//
//  1. opsdesk/ — the agent, which imports nothing of agentsnap (a spec
//     checks its dependency list): an agents.OpenAIFunctionsAgent run by an
//     agents.Executor on a langchaingo model, with service_status, the
//     framework's tools.Calculator, ask_researcher (a tool whose Call runs
//     another executor with an empty conversation: a spawn child) and, when
//     the desk remembers (memory.ConversationBuffer), ask_colleague (an
//     executor whose memory starts as a copy of the desk's chat history: a
//     fork child).
//
//  2. agentsnap_test.go — the only file that knows both: the langchaingo
//     openai LLM gets agentsnap's HTTP client and base URL, and the runtime
//     is built with wire.InferLineage, because langchaingo hands a tool no
//     tool call id to name its child by.
//
//     opsloop/ is the same desk for llms/anthropic and llms/googleai, on
//     which agents.OpenAIFunctionsAgent declares no tool (it passes them
//     with llms.WithFunctions, which only llms/openai reads): a tool loop
//     on GenerateContent with llms.WithTools, a researcher (spawn) and a
//     colleague whose conversation starts as a copy of the desk's completed
//     turns (fork). loop_test.go wires it to llms/anthropic,
//     googleai_test.go (built with -tags googleai: googleai's gRPC and
//     Google Cloud stack is too much to compile in CI) to llms/googleai;
//     their fixtures are testdata/anthropic and testdata/googleai.
//
//  3. testdata/fixtures/ — scenarios recorded from their playbooks:
//     several tool calls in one answer (langchaingo sends them back as one
//     assistant message per call), a researcher, memory across turns, the
//     desk without memory asked twice, a colleague, and both children in
//     one answer. Record again with
//
//     AGENTSNAP_RECORD='.' go test ./... -count=1
//
//  4. the specs: every fixture replays to its recording and golden; the
//     shapes langchaingo sends are recorded as sent (history/replace);
//     drift names a changed system prompt or temperature; -update rewrites
//     a golden; the fork fixtures fail without the seed slice; the desk
//     streaming its answers replays the same fixtures; a live
//     recording against a local OpenAI-compatible server replays offline;
//     no replay opens a socket; without wire.InferLineage, or with a
//     child's question that two open calls hold, the call is refused with
//     what to do. For the tool loop (providers_test.go,
//     providers_live_test.go): each provider's fixture replays, streamed
//     too; a researcher given another prompt drifts at its own first
//     call; a live recording against aimock, the independent mock of the
//     model APIs, replays offline; and the functions agent on each
//     provider is recorded declaring no tool.
//
// README.md holds the lines a langchaingo team adds.
package langchaingo
