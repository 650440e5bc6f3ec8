// Package gemini is Google's Gemini API (generateContent and
// streamGenerateContent), both sides of it on one schema: a live
// [llm.Driver] that streams calls to a Gemini endpoint (the client side,
// [New], on package live), and what the wire layer serves agents on the
// official SDKs with (the server side: [DecodeRequest], [WriteStream] —
// server-sent events, or [WriteJSONStream], one JSON array, for a client
// that asks for alt=json — [WriteMessage], [WriteError]).
//
// # The live driver
//
// A call goes to {BaseURL}[/v1beta]/models/{model}:streamGenerateContent?alt=sse
// (see [Config.BaseURL]), its key in the x-goog-api-key header. The body
// is the conversation as contents — reasoning as thought parts, tool calls
// as functionCall parts, tool results as functionResponse parts of a user
// content, {"output": text} or {"error": text} — each part with the
// thought signature the model gave it; and, for a call an agent sent over
// the wire in this API, each functionResponse's response as the agent
// sent it (Forward.Responses: the Vercel AI SDK's {"name", "content"})
// with the willContinue and scheduling the tool result's meta holds,
// its settings as sent (its tools too, when a function declaration says
// more than a name, a description and a JSON Schema: OpenAPI parameters,
// behavior, responseJsonSchema, …), and its inlineData and fileData parts with
// their videoMetadata (Forward.Media: the log holds their digests, and
// the clip in the attachment). A call with an image or file part and no
// such part is refused.
//
// # Chunks
//
// Text parts in a row are one text block, thought parts one reasoning
// block, up to a part that carries a thoughtSignature, which ends its
// block; a function call, which the API sends whole, is a block of its
// own. A block ends (its block-end, with the signature as
// {"gemini":{"thoughtSignature":…}} meta) when the next one starts. A
// signature that comes alone belongs to the block before it. Arguments are
// recorded as their JSON object in canonical form (members in name order).
// A call without an id gets call_TURN_STEP_N (the model call's turn and
// step, N its block index: unique in the session), and a call whose id
// another call of the answer has gets ID_N: the runtime pairs results and
// children with calls by id. Then come the usage (output tokens include
// the thoughts, reasoning tokens are the thoughts, cache reads the cached
// prompt tokens) and one finish.
//
// # Finish kinds
//
// MAX_TOKENS → max-tokens; SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII and the image ones → an error finish with code
// CONTENT_FILTER, as is a prompt blocked by promptFeedback; the reasons
// that say the model could not answer (MALFORMED_FUNCTION_CALL,
// UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS, LANGUAGE, OTHER) → an error
// finish with code PROVIDER. STOP, which the API also says after function
// calls, and every other reason follow the content: tool-calls when the
// answer calls tools, stop otherwise. An error event ends the stream with
// the error it holds; a part agentsnap cannot record (inline data, code
// execution) with BAD_STREAM.
//
// # Failures, retries and secrets
//
// The driver is a [live.Driver] of the [GenerateContent] API: failures
// become error finishes with the codes of package live, 429 and 5xx
// answers are retried before anything streams, and every message is
// scrubbed of the key — the header's, and a key= in the base URL's query,
// which is sent as given — and of the recording's secrets.
package gemini
