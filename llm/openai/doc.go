// Package openai is a live [llm.Driver] for OpenAI-compatible Chat
// Completions endpoints (OpenAI, DeepSeek, vLLM, Ollama): it POSTs to
// {BaseURL}/chat/completions with stream:true and turns the server-sent
// events into agentsnap stream chunks.
//
// # Chunks
//
// Each content block gets a block-start, its deltas and, when the provider
// completes the response, a block-end carrying the whole block. Block
// indexes follow the order blocks start: delta.reasoning_content (or
// delta.reasoning, as newer vLLM and Ollama send it) opens a reasoning
// block, delta.content a text block, and each delta.tool_calls[].index its
// own tool-call block, so parallel calls with interleaved argument fragments
// stay apart. A tool-call-delta carries id and name the first time they are
// known. Open blocks are closed in index order, then comes the usage chunk
// (if the provider sent usage; stream_options.include_usage asks for it),
// then exactly one finish.
//
// # Tool-call ids
//
// The runtime pairs results with calls, and starts a subagent per call, by
// id, so the ids of one response are unique. The first call to bring an id
// keeps it. A later call of the same response that brings an id already
// given out gets ID_N instead, N being its block index (call_0_2 for the
// second call_0 at block 2), or ID_N_2, ID_N_3, … when that is taken too;
// the tool-call-delta that names the call and its block-end carry the same
// id. A call whose id never arrives is named call_N at its block-end, by
// the same rule. Ids depend only on the stream's bytes, so a replay of the
// same response gets the same ids. Ids repeated across responses are left
// alone: each response is decoded on its own. Fragments that repeat the
// provider's id keep going to the call that first brought it; a new id at
// a known index (proxies that put every call at index 0) starts a new call.
//
// # Finish kinds
//
// finish_reason length → max-tokens; content_filter → an error finish with
// code CONTENT_FILTER; DeepSeek's insufficient_system_resource → an error
// finish with code SERVER. Every other case — stop, tool_calls, the legacy
// function_call, a reason this package does not know, or [DONE] with no
// finish_reason at all — follows the content: tool-calls when the response
// holds tool calls, stop otherwise. Older Ollama says stop for a response
// with tool calls, and the calls are what the runtime must act on.
//
// # Failures
//
// Once a stream has started, every failure is an error finish, never a Go
// error: HTTP 401/403 → AUTH, 429 → RATE_LIMIT, 5xx → SERVER, other 4xx →
// BAD_REQUEST (each with [session.Failure].Status set; a 401, 403 or 404
// message ends with what to check: the key, its access to the model, the
// model name and base URL), an error object inside the stream → a code
// derived from it (PROVIDER when it names no known kind), a frame that is not JSON or a line over 8 MiB → BAD_STREAM,
// a connection that fails or closes before a finish_reason → TRANSPORT,
// a 2xx answer that is JSON instead of an event stream → BAD_STREAM (or
// the code of the error it holds). A stream that closes after its
// finish_reason but before [DONE] is complete; only its usage may be lost.
// Context cancellation finishes aborted. A stream that breaks leaves its
// open blocks without block-end, so a log never claims a cut-off tool call
// is complete; the deltas still say what arrived. A request that gets no
// answer names the server by host:port only (a DNS failure, a refused
// connection, or the network error), never the whole URL. [Retryable]
// tells the runtime which codes are worth retrying as a new attempt;
// [InfrastructureFailure] tells a recorder which codes say the call never
// reached a working model, as opposed to how the model behaved.
//
// The driver retries by itself only where nothing was yielded yet: a 429 or
// 5xx answer to the request, with bounded exponential backoff (honouring
// Retry-After up to MaxBackoff). Each try is logged as an attempt through
// Config.Logger: "attempt" counts the HTTP tries of one Stream call, and
// "session", "turn", "step" and "stepAttempt" (the request's Attempt) name
// the model call, so the runtime's retries of a step are told apart.
// Network errors are not retried here; they finish TRANSPORT and the
// runtime decides.
//
// # Secrets
//
// The API key and the values of Config.Header go only into request headers.
// Log lines carry the session id, turn, step, attempt numbers, statuses,
// delays, codes, the model name and the scrubbed failure message, never a
// header or the URL. Every message this package builds from provider
// output is scrubbed — exactly, in every encoding — of the key, of those
// header values, of the base URL's query credentials and user info
// (Driver.Credentials lists them) and of every secret of the recording the
// call runs in (it comes in the context), then of "Bearer" tokens and of
// "sk-" key echoes (OpenAI's 401 message repeats a masked key), before it
// reaches a log line, an error or a chunk.
package openai
