// Package openai is OpenAI's Chat Completions API, both sides of it on one
// schema (Request, Message, Chunk, Completion, …): a live [llm.Driver] for
// OpenAI-compatible Chat Completions endpoints (OpenAI, DeepSeek, vLLM,
// Ollama), and what the wire layer (wire.ChatCompletions) needs to serve
// an agent on an OpenAI SDK — its requests read into agentsnap's terms
// (DecodeRequest; DecodeNext reads one against the session's last,
// decoding only the messages it adds), answers written as the API's stream (ServeStream),
// whole (Whole) or as errors (NewErrorBody).
//
// # The live driver
//
// It POSTs to {BaseURL}/chat/completions with stream:true and turns the
// server-sent events into agentsnap stream chunks. A user message with
// image or file parts goes out as a content array, each of them the
// content part the agent sent (Forward.Media, for a call the wire layer
// decoded from this API); a call with one and no such part is refused,
// the log holding a digest and no bytes. Such a call goes out with its
// settings as the agent sent them, and with its tools as sent when one of
// them says more than a function's name, description and parameters
// (strict, a tool of another type: Call.ToolsSetting); any other call
// with the tools' specs alone.
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
// then exactly one finish. A tool call of a type other than function (a
// custom tool's, "type":"custom") ends the stream with an error finish with
// code BAD_STREAM naming the frame, the tool and its type: a session log
// records function calls only, and a live recording refuses it as it
// refuses a broken stream. A call with no type is a function call.
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
// # Failures, retries and secrets
//
// The driver is a [live.Driver] of the [Chat] API: failures become error
// finishes with the codes of package live, 429 and 5xx answers are retried
// before anything streams, and every message is scrubbed of the key and
// the recording's secrets; see package live.
//
// # Serving
//
// ServeStream writes what the SDKs read: a data: event per
// chat.completion.chunk, id chatcmpl-agentsnap and created 0 in every run,
// the first delta with role assistant, reasoning as reasoning_content (as
// DeepSeek sends it), a tool call's first fragment with its id, name and
// type, then a frame with the finish_reason (stop, tool_calls, length), a
// usage frame with no choices when the call reported usage, and data:
// [DONE]. A failed call ends with an error frame, an aborted one with
// nothing more; the frames are the bytes encoding/json's Marshal writes
// for the schema's types (HTML escaping on). DecodeRequest reads system and developer messages as the
// system prompt, each tool message as a tool result named after the call
// it answers, and of a content array its text parts.
package openai
