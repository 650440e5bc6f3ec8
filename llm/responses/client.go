package responses

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
)

// Config configures a live Responses driver. Only BaseURL is required;
// Model is required unless every request names one.
type Config struct {
	// BaseURL is the API root, such as https://api.openai.com/v1; calls
	// go to {BaseURL}/responses.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer KEY"; empty sends none.
	APIKey string
	// Model is the default model; a Request's Model overrides it.
	Model string
	// Header holds extra request headers, treated as secrets like the key.
	Header http.Header
	// HTTPClient sends the requests; nil means http.DefaultClient. Do not
	// give it a Timeout shorter than a whole response stream.
	HTTPClient *http.Client
	// Logger receives one record per HTTP attempt; nil logs nothing.
	Logger *slog.Logger
	// MaxRetries is how many times a 429 or 5xx answer is retried before
	// any chunk is yielded; 0 means live.DefaultMaxRetries, negative none.
	MaxRetries int
	// BackoffBase is the delay before the first retry, doubled for each
	// later one; 0 means live.DefaultBackoffBase.
	BackoffBase time.Duration
	// MaxBackoff caps every delay; 0 means live.DefaultMaxBackoff.
	MaxBackoff time.Duration
	// Sleep waits between retries; nil waits on a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// New returns a live driver of the Responses API for cfg. It fails only
// when cfg.BaseURL is not an absolute http or https URL.
func New(cfg Config) (*live.Driver, error) {
	return live.New(Client{}, live.Config{
		BaseURL:     cfg.BaseURL,
		APIKey:      cfg.APIKey,
		Model:       cfg.Model,
		Header:      cfg.Header,
		HTTPClient:  cfg.HTTPClient,
		Logger:      cfg.Logger,
		MaxRetries:  cfg.MaxRetries,
		BackoffBase: cfg.BackoffBase,
		MaxBackoff:  cfg.MaxBackoff,
		Sleep:       cfg.Sleep,
	})
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
