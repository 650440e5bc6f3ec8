// Package responses is OpenAI's Responses API (POST /v1/responses): its
// schema — request, input and output items, tools, the response object,
// the stream events, the error body — and both sides built on it. The
// client side is a live driver (New, Client) for live recording; the
// server side is what the wire layer serves agents with (wire.Responses):
// Served.Decode reads an agent's request, WriteStream and WriteMessage
// answer it, WriteError refuses it.
//
// # Serving: items, chains and ids
//
// A request's input becomes agentsnap's conversation: user messages;
// consecutive output items sent back (reasoning, assistant messages,
// function calls) one assistant message; each function_call_output a tool
// message, named after its function call. instructions, and system or
// developer messages, are the system prompt (previous_response_id does not
// carry them). Every response served is kept in a Served under its id:
// previous_response_id continues its conversation, item_reference names
// one of its output items, and both are refused, naming the id and what to
// send instead, when the id is unknown or its response was served with
// store false (the API keeps none of those). A conversation (the
// Conversations API) is refused. Item types other than these are refused
// too: agentsnap serves function tools. The input_image, input_file and
// input_audio parts of a user message or a function's output are image
// and file parts (see session.Attachment), kept as sent for a live model
// (Decoded.Forward) with the response that answers them when it is stored,
// as a chain's later calls need them too, and only then: a run keeps the
// blocks of the conversations a later request may name, not every image
// it was sent; any elsewhere is refused.
//
// The ids an answer hands out are derived from the call's key (the
// session's lineage, turn, step and attempt): resp_…, msg_…, fc_… the same
// in a recording and every replay, so an agent's next request names the
// same chain. A reasoning item keeps the id its recording gave it, since
// its encrypted content belongs to that id; it is written when its block
// ends. Tool calls are named by call_id in the log. What the API wants
// back with an item — its id, a message's phase, a reasoning item's
// encrypted_content — rides on the part as Meta ({"openai-responses":
// {...}}): an item this run served comes back with the meta its recording
// holds (the ids served are the call's, derived again in every run), so
// the conversation a request sends is the log's, digest for digest; an
// item it did not serve keeps what it says. An item's status is not kept.
//
// A stream is response.created, response.in_progress, then per item
// output_item.added, its content (content_part.added, output_text.delta
// and .done, content_part.done; function_call_arguments.delta and .done;
// reasoning_summary_part.added, reasoning_summary_text.delta and .done,
// reasoning_summary_part.done) and output_item.done, then
// response.completed with the whole response — response.incomplete for a
// call that hit its token limit. Every event has its sequence_number and
// its event: line. A failed call ends with an error event as OpenAI sends
// it (the error object nested, which openai-go's stream returns as its
// error), with the documented code and message beside it; an aborted call
// ends the stream with nothing more. created_at is 0, so an agent reads
// the same bytes in every run.
//
// # Settings
//
// Every request member is a setting but the transport: model, input,
// instructions, tools, stream, stream_options (framing), store,
// previous_response_id and conversation (where state lives). The tools
// are a setting too, as sent, when they say more than their names,
// descriptions and parameters (a strict flag, a tool of another type):
// drift then sees the change, and a live model of this API gets them as
// sent.
//
// # Live recording
//
// The driver POSTs {BaseURL}/responses with stream true, the key as a
// bearer token. It sends the whole conversation as input with store false:
// agentsnap holds the chain (the ids an agent names are agentsnap's, not
// the model server's), so nothing is left on the server and
// previous_response_id is never sent: the images and files of the chain
// go with it, as the agent sent them (Decoded.Forward; a call without the
// agent's part for one is refused). Output items go back without their
// ids (with store false the API would look them up and fail), a reasoning
// item only with its encrypted content and id (ask for it with include
// reasoning.encrypted_content). A call made in this API has its settings
// sent as they are; a call decoded from another API gets those that mean
// the same here (temperature, top_p, the output limit, tool_choice,
// parallel_tool_calls, user, metadata, reasoning effort, the response
// format), and its function tools strict false, as they were.
//
// The stream becomes chunks: each output item a block in the order items
// start — a message a text block (refusals included), a function_call a
// tool-call block (its call_id, made unique in the response, and name on
// the first delta), a reasoning item a reasoning block of its summary parts
// (a blank line between them) or reasoning text; a reasoning item with
// only encrypted content gets an empty block to carry it, one with
// nothing gets none. output_item.done ends the item's block with its id
// (and phase, encrypted content) as Meta. response.completed gives the
// usage and any item the stream did not show; the finish follows the
// content (tool-calls when there are function calls, else stop).
// response.incomplete is max-tokens (content_filter: an error finish with
// code CONTENT_FILTER); response.failed and an error event are error
// finishes with the codes of package live. An item that asks the client
// to act other than a function call — a custom tool's, computer, shell or
// apply_patch call, an MCP approval request, a tool search the client
// runs, any *_call type this package does not know — ends the stream with
// an error finish with code BAD_STREAM naming it and what to do, where it
// is added, done or only in the terminal response: a session log records
// function calls only, and a live recording refuses it. The calls the
// server runs itself (web, file and tool search, code interpreter, image
// generation, MCP calls and tool listings) are left out of the log: of an
// item other than a function call, a message or reasoning the decoder
// reads only its type and what it may ask of the client, so its members
// may be of any kind (a tool search's arguments are an object); of a
// terminal response, only its output, usage and why it stopped.
package responses
