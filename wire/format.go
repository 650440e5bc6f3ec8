package wire

import (
	"encoding/json"
	"iter"
	"net/http"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// Format is one model API on the wire: which requests are its calls, how a
// request reads and how an answer is written. The handler, the sessions,
// the logs and the replay are the same for every format.
type Format interface {
	// Name names the API in messages ("OpenAI Chat Completions").
	Name() string
	// API names the API in the logs (request/header's api member), such
	// as "openai-chat"; a replay through another API is drift.
	API() string
	// Match reports whether r is a model call of this API (its method and
	// path).
	Match(r *http.Request) bool
	// DecodeRequest reads a call: its body, and where an API puts part of
	// the call in the URL (Gemini: the model, whether to stream), r.
	DecodeRequest(r *http.Request, body []byte) (*Request, error)
	// WriteStream writes a streamed answer: the chunks of one model call,
	// which end with exactly one finish. It writes the status and headers.
	WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error
	// WriteMessage writes a whole answer (a request that did not ask for a
	// stream): the assembled message, its usage and how it finished.
	WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error
	// WriteError writes a failure in the API's error shape: a request the
	// handler cannot serve (an unknown session, a broken body; see refuse)
	// or a model call's failure served as recorded (see retryAtOnce).
	WriteError(w http.ResponseWriter, status int, code, message string)
}

// Request is a model call as it came over the wire, in agentsnap's terms.
type Request struct {
	Model  string
	System string
	// Messages is the conversation as sent, system prompt excluded: user
	// messages, assistant messages (with their tool calls) and tool
	// results, one message per tool result.
	Messages []session.Message
	Tools    []llm.ToolSpec
	Stream   bool
	// Settings holds the request's other members — temperature,
	// max_tokens, tool_choice, … in the API's own names — as canonical
	// JSON (members in name order), or nil when there are none. They reach a live
	// model of the same API as sent, and a change is drift.
	Settings json.RawMessage
	// Forward is what the request carries beyond these terms that a live
	// model of the same API gets as sent (llm.Request.Forward): neither
	// recorded nor drift.
	Forward any
	// Key names the model call, the same in the recording and in every
	// replay: the session's lineage, turn, step and attempt. The handler
	// sets it before the answer is written; a format derives the ids its
	// API hands out (response and item ids) from it, so an agent that
	// sends them back names the same ones in every run.
	Key string
	// Private is the format's own: what its DecodeRequest read that its
	// writers need (a Responses request's store). The handler leaves it
	// alone.
	Private any

	// Set by an incremental format: the state to read the session's next
	// request against; the state this one was read against, when its
	// first reused messages are the messages of the request that left it.
	state, base any
	reused      int
	// Set by the session: how many leading messages are those of the
	// session's last request (Handler.known), for the journal; and the
	// model call made of the request.
	known  int
	call   llm.Request
	tapped tapped // the call's stream (Request.tap)
}

// startStream sends the status and headers of a server-sent event stream
// and returns what flushes w.
func startStream(w http.ResponseWriter) (flush func()) {
	live.StreamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	if _, ok := w.(*bodyWriter); ok {
		return noFlush // in process: a write is ready to read at once
	}
	return func() {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
}

func noFlush() {}
