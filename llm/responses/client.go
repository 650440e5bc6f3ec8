package responses

import (
	"net/http"
	"net/url"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
)

// Config configures a live Responses driver: the live driver's. Only
// BaseURL is required; Model is required unless every request names one.
// Calls go to {BaseURL}/responses, such as https://api.openai.com/v1; the
// key is sent as "Authorization: Bearer KEY".
type Config = live.Config

// New returns a live driver of the Responses API for cfg. It fails only
// when cfg.BaseURL is not an absolute http or https URL.
func New(cfg Config) (*live.Driver, error) {
	return live.New(Client{}, cfg)
}

// Client is the client side of the Responses API, what a live driver
// streams with (live.New(responses.Client{}, cfg)).
type Client struct{}

var _ live.API = Client{}

// Name is the API's name in llm.Request.API.
func (Client) Name() string { return API }

// Prefix starts the driver's messages.
func (Client) Prefix() string { return API }

// Endpoint is {base}/responses.
func (Client) Endpoint(base *url.URL, _ string) string { return base.JoinPath("responses").String() }

// Authorize sends the key as a bearer token.
func (Client) Authorize(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// Encode writes a streamed Responses request: the whole conversation,
// store false; see the package doc.
func (Client) Encode(req *llm.Request, model string) ([]byte, error) {
	return encodeRequest(req, model)
}

// Decoder reads a Responses event stream.
func (Client) Decoder(sc live.Scrubber) live.Decoder { return newDecoder(sc) }

// Hint says what to check after a 401, 403 or 404.
func (Client) Hint(status int, model string) string {
	return live.StatusHint(status, model, "https://api.openai.com/v1")
}

// KeyFromEnv returns the first non-empty API key among AGENTSNAP_API_KEY
// and OPENAI_API_KEY, read through getenv (os.Getenv in production), and
// the name of the variable it came from. Both are empty when none is set.
func KeyFromEnv(getenv func(string) string) (key, varName string) {
	return live.KeyFromEnv(getenv, "AGENTSNAP_API_KEY", "OPENAI_API_KEY")
}
