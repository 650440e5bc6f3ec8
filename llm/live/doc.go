// Package live is the live side of every model API agentsnap speaks: a
// Driver that streams a model call over HTTP to a real endpoint and turns
// its server-sent events into agentsnap stream chunks. What differs from
// one API to the next — where a call goes, how its key travels, how its
// body is written and its stream read — is an API, in that API's own
// package beside the schema the wire layer serves it with (llm/openai for
// Chat Completions). Everything else is here, the same for every API.
//
// # Failures
//
// Once a stream has started, every failure is an error finish, never a Go
// error: HTTP 401/403 → AUTH, 429 → RATE_LIMIT, 5xx → SERVER, other 4xx →
// BAD_REQUEST (each with [session.Failure].Status set; a 401, 403 or 404
// message ends with what to check, API.Hint), an error object inside the
// stream → a code derived from it (PROVIDER when it names no known kind),
// a frame the API's decoder cannot read or a line over 8 MiB →
// BAD_STREAM, a tool call the model made that a session log cannot record
// (a call of anything but a function tool, which the client would have to
// run) → BAD_STREAM ([UnrecordableFinish]; [Unrecordable] tells it from
// the other BAD_STREAM failures), a connection that fails or closes
// before the answer is complete → TRANSPORT, a 2xx answer that is JSON instead of an event
// stream → BAD_STREAM (or the code of the error it holds). Context
// cancellation finishes aborted. A request that gets no answer names the
// server by host:port only, never the whole URL. [Retryable] tells the
// runtime which codes are worth retrying as a new attempt;
// [InfrastructureFailure] tells a recorder which codes say the call never
// reached a working model, as opposed to how the model behaved.
//
// The driver retries by itself only where nothing was yielded yet: a 429
// or 5xx answer to the request, with bounded exponential backoff
// (honouring Retry-After up to MaxBackoff). Each try is logged as an
// attempt through Config.Logger, naming the request's session, turn, step
// and step attempt. Network errors are not retried here.
//
// # Secrets
//
// The API key and the values of Config.Header go only into request
// headers. Log lines carry ids, numbers, statuses, delays, codes, the
// model name and the scrubbed failure message, never a header or the URL.
// Every message built from provider output is scrubbed of the driver's
// credentials — the key as the API carries it, the header values, the
// base URL's query and user info — and of what the recording the call runs
// in knows (internal/secret), in every encoding, before it reaches a log
// line, an error or a chunk. [Driver.Credentials] names what the driver
// sends, for the recorder's tripwire.
package live
