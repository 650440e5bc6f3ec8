// Package llm is the seam between an agent runtime and a model: a [Driver]
// streams the [Chunk]s of one model call for a [Request].
//
// Three kinds of driver implement it in agentsnap: llm/live (a live endpoint,
// in the API of llm/openai, llm/responses, llm/anthropic or llm/gemini;
// llm/apis lists them), llm/playbook (authored model turns, offline) and
// fakellm (replay of a recorded session). Because
// every Request names the session that makes it — id, parent, the tool call
// that created it and how — a replay driver can route each call to the
// script of the session that made it, even when subagents run concurrently.
package llm
