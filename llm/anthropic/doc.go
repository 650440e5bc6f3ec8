// Package anthropic is Anthropic's Messages API (POST /v1/messages), both
// sides of it on one schema: a live [llm.Driver] that records from a real
// endpoint, and what the wire layer (wire.AnthropicMessages) needs to
// serve an agent on an Anthropic SDK — its requests read into agentsnap's
// terms (DecodeRequest; DecodeNext reads one against the session's last,
// decoding only the messages it adds), answers written as the API's
// events (ServeStream), whole (Whole) or as errors (NewErrorBody).
//
// # The live driver
//
// It POSTs to {BaseURL}/messages (BaseURL an API root such as
// https://api.anthropic.com/v1, like agentsnap's other base URLs; an
// origin without /v1, as the SDKs take it, gets /v1/messages) with
// stream:true, the key in x-api-key and anthropic-version 2023-06-01.
// A call the wire layer decoded from this API is sent with its settings
// as the agent sent them — max_tokens, temperature, tool_choice, thinking,
// stop_sequences, metadata, … — any other call with max_tokens
// DefaultMaxTokens (Config.MaxTokens) and no settings; its tools, when
// one of them says more than a name, a description and an input_schema
// (the Vercel AI SDK's eager_input_streaming, strict, a server tool), are
// a setting too (Call.ToolsSetting) and go out as sent. The system prompt
// goes out as a string; tool results go back as tool_result blocks of one
// user message, after the assistant message whose tool_use blocks made
// the calls, with is_error; reasoning goes back only as the thinking (or
// redacted_thinking) block the API signed, from its Part.Meta. Such a call
// also keeps the agent's prompt cache breakpoints (Forward): each
// cache_control goes out on the system block, tool or content block the
// agent put it on (the system prompt then as the agent's blocks), so a
// recording pays, and records the cache's usage, as the agent does in
// production; and the agent's anthropic-beta headers go out with it,
// besides Config.Header's. Neither is recorded, nor drift (see Forward).
// Its image and document blocks go out as the agent sent them
// (Forward.Media): the log holds their digests, which are drift; a call
// with an image or file part and no block for it (another API's, a
// runtime's own) is refused, the log having no bytes to send.
//
// # Chunks
//
// Each content block the API starts gets a block-start, its deltas and,
// at its content_block_stop, a block-end carrying the whole block.
// Blocks are numbered in start order: text → text, thinking and
// redacted_thinking → reasoning, tool_use → tool-call. A thinking
// block's signature (signature_delta) and a redacted_thinking block's data
// ride on its block-end as Block.Meta, {"anthropic-messages":
// {"signature": …}} or {"anthropic-messages": {"data": …}}, so the
// assistant message keeps them and the wire layer hands them back. A
// tool_use block's first tool-call-delta names its id and name; its
// input_json_delta fragments are its arguments ({} when none came). Block
// types this package does not carry (server tools and their results) are
// skipped. The usage chunk comes after the blocks: input tokens count
// every prompt token (input_tokens plus the cache's read and created
// tokens, as the other APIs count them), cacheReadTokens the cache's read
// ones, reasoningTokens output_tokens_details.thinking_tokens.
//
// # Finish kinds
//
// stop_reason max_tokens and model_context_window_exceeded → max-tokens;
// refusal → an error finish with code CONTENT_FILTER, as a filtered Chat
// Completions answer; every other reason (end_turn, tool_use,
// stop_sequence, pause_turn, none) follows the content: tool-calls when
// the answer holds tool calls, stop otherwise. An error event → an error
// finish whose code follows the error's type (ErrorCode). The answer is
// complete at message_stop (or a message_delta with its stop_reason); a
// stream that ends before it is a TRANSPORT failure.
//
// # Serving
//
// ServeStream writes what the SDKs read: every event with its event:
// line, a message_start with the whole message (id from the call's key,
// MessageID), content_block_start indexes 0, 1, 2 without gaps, a
// tool_use block starting with its id, name and input {}, the
// stop_reason and the usage (input_tokens, output_tokens,
// cache_read_input_tokens) in message_delta, then message_stop. A replay
// serves a stop finish as end_turn: a recorded stop_sequence or
// pause_turn is not kept apart.
//
// # Failures, retries and secrets
//
// The driver is a [live.Driver] of the [Messages] API: failures become
// error finishes with the codes of package live (a 529 overloaded is a
// 5xx, retried before anything streams), and every message is scrubbed of
// the key and the recording's secrets. [Driver.Credentials] names the key
// as "the x-api-key header".
package anthropic
