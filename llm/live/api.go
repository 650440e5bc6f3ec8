package live

import (
	"net/http"
	"net/url"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// API is the client side of one model API: where a streamed call goes, how
// its key travels, how its body is written and how its stream reads. The
// Driver does the rest — retries, failures, secrets, logs — the same for
// every API. Implementations are in the API's own package (llm/openai for
// Chat Completions, …), beside the schema the wire layer serves it with.
type API interface {
	// Name is the API's name in llm.Request.API and request/header's api
	// member ("openai-chat"): a call the wire layer decoded in this API
	// has its settings sent on as they are.
	Name() string
	// Prefix starts every message about a call ("openai").
	Prefix() string
	// Endpoint is the URL of a streamed call of model at base, the base
	// URL as configured (its path without a trailing slash).
	Endpoint(base *url.URL, model string) string
	// Authorize sets the headers that carry key (Authorization: Bearer,
	// x-api-key, x-goog-api-key, …) and any the API always wants
	// (anthropic-version).
	Authorize(h http.Header, key string)
	// Encode writes the body of a streamed call of req to model.
	Encode(req *llm.Request, model string) ([]byte, error)
	// Decoder returns the decoder of one answer's stream; sc scrubs the
	// text of the failures it makes.
	Decoder(sc Scrubber) Decoder
	// Hint says what to check after an HTTP error a retry cannot fix
	// ("; check the API key"), or "".
	Hint(status int, model string) string
}

// callHeader is an API whose calls may send headers of their own besides
// the driver's: those of the agent's request that the API's live model
// must get as the agent sent them (Anthropic's anthropic-beta).
type callHeader interface {
	// CallHeader returns req's headers, or nil.
	CallHeader(req *llm.Request) http.Header
}

// Decoder turns the events of one answer's stream into chunks. It is used
// by one goroutine.
type Decoder interface {
	// Event decodes the data of one server-sent event (its event name,
	// when it has one). It returns the chunks to yield (valid until the
	// next call) and, when the event ends the stream with an error — an
	// error object, a frame that is not the API's — the finish.
	Event(name string, data []byte) ([]session.Chunk, *session.Chunk)
	// Complete reports whether the API has said the answer is over: the
	// end of the input is no failure then.
	Complete() bool
	// End returns the closing chunks of a complete stream: a block-end per
	// open block in index order, the usage if any, and the finish.
	End() []session.Chunk
}
