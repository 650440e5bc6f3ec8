package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
)

// Version is the anthropic-version header a driver sends unless
// Config.Version says otherwise: the version every Messages endpoint
// accepts.
const Version = "2023-06-01"

// DefaultMaxTokens is the max_tokens of a request that names none: a call
// of a runtime on llm.Driver, or one the wire layer decoded from another
// API. The Messages API requires the member; 4096 is within every Claude
// model's output limit. A request decoded from this API sends its own.
const DefaultMaxTokens = 4096

// Config configures a [Driver]. Only BaseURL is required; Model is required
// unless every request names one.
type Config struct {
	// BaseURL is the API root, such as https://api.anthropic.com/v1:
	// requests go to {BaseURL}/messages. An origin without /v1, as the
	// official SDKs and ANTHROPIC_BASE_URL take it (https://api.anthropic.com),
	// works too: requests then go to {BaseURL}/v1/messages.
	BaseURL string
	// APIKey is sent in the x-api-key header; empty sends none.
	APIKey string
	// Model is the default model; a Request's Model overrides it.
	Model string
	// MaxTokens is the max_tokens of requests that name none; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// Version is the anthropic-version header; "" means Version.
	Version string
	// Header holds extra request headers (anthropic-beta, a proxy's).
	// Their values are treated as secrets like the key: never logged,
	// scrubbed from messages.
	Header http.Header
	// HTTPClient sends the requests; nil means http.DefaultClient. No
	// redirect to another origin is followed (live.SameOriginClient). Do not
	// give it a Timeout shorter than a whole response stream: cancel the
	// context instead.
	HTTPClient *http.Client
	// Logger receives one record per HTTP attempt; see live.Config.
	Logger *slog.Logger
	// MaxRetries is how many times a 429 or 5xx answer (529 overloaded
	// included) is retried before any chunk is yielded; 0 means
	// live.DefaultMaxRetries, negative means none.
	MaxRetries int
	// BackoffBase is the delay before the first retry, doubled for each
	// later one; 0 means live.DefaultBackoffBase.
	BackoffBase time.Duration
	// MaxBackoff caps every delay, Retry-After included; 0 means
	// live.DefaultMaxBackoff.
	MaxBackoff time.Duration
	// Sleep waits between retries; nil waits on a timer. Tests set it to
	// record delays without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Driver streams Anthropic Messages: a [live.Driver] of this package's API.
type Driver = live.Driver

// New returns a Messages driver for cfg. It fails only when cfg.BaseURL
// is not an absolute http or https URL.
func New(cfg Config) (*Driver, error) {
	api := Messages{MaxTokens: cfg.MaxTokens, Version: cfg.Version}
	header := cfg.Header
	if cfg.APIKey == "" && header.Get("anthropic-version") == "" {
		// The live driver sets an API's headers with its key only; a
		// keyless endpoint (a local proxy) still wants the version.
		header = header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set("anthropic-version", api.version())
	}
	return live.New(api, live.Config{
		BaseURL:     cfg.BaseURL,
		APIKey:      cfg.APIKey,
		Model:       cfg.Model,
		Header:      header,
		HTTPClient:  cfg.HTTPClient,
		Logger:      cfg.Logger,
		MaxRetries:  cfg.MaxRetries,
		BackoffBase: cfg.BackoffBase,
		MaxBackoff:  cfg.MaxBackoff,
		Sleep:       cfg.Sleep,
	})
}

// Messages is the Messages API, the client side of it a live driver
// streams with (live.New(anthropic.Messages{}, cfg)).
type Messages struct {
	// MaxTokens is the max_tokens of requests that name none; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// Version is the anthropic-version header; "" means Version.
	Version string
}

var _ live.API = Messages{}

// Name is the API's name in llm.Request.API.
func (Messages) Name() string { return API }

// Prefix starts the driver's messages.
func (Messages) Prefix() string { return "anthropic" }

// Endpoint is {base}/messages for a base that ends in /v1, else
// {base}/v1/messages (an origin, as the SDKs take it).
func (Messages) Endpoint(base *url.URL, _ string) string {
	if strings.HasSuffix(base.Path, "/v1") {
		return base.JoinPath("messages").String()
	}
	return base.JoinPath("v1", "messages").String()
}

// Authorize sends the key in x-api-key, and the anthropic-version.
func (m Messages) Authorize(h http.Header, key string) {
	h.Set("x-api-key", key)
	h.Set("anthropic-version", m.version())
}

func (m Messages) version() string {
	if m.Version == "" {
		return Version
	}
	return m.Version
}

// Encode writes a streamed Messages request.
func (m Messages) Encode(req *llm.Request, model string) ([]byte, error) {
	maxTokens := m.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	return encodeRequest(req, model, maxTokens)
}

var _ live.Counter = Messages{}

// CountEndpoint is the Endpoint's count_tokens: {base}/messages/count_tokens
// for a base that ends in /v1, else {base}/v1/messages/count_tokens.
func (m Messages) CountEndpoint(base *url.URL, model string) string {
	return m.Endpoint(base, model) + "/count_tokens"
}

// EncodeCount writes a count_tokens request: what a call of req sends
// (its settings and breakpoints as the agent sent them), without stream
// and without a max_tokens the agent did not send.
func (Messages) EncodeCount(req *llm.Request, model string) ([]byte, error) {
	return encodeBody(req, model, 0, false)
}

// DecodeCount reads count_tokens' answer, {"input_tokens": N}.
func (Messages) DecodeCount(body []byte) (int64, error) {
	var a struct {
		InputTokens *int64 `json:"input_tokens"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, err
	}
	if a.InputTokens == nil {
		return 0, errors.New("it has no input_tokens")
	}
	return *a.InputTokens, nil
}

// Decoder reads a Messages event stream.
func (Messages) Decoder(sc live.Scrubber) live.Decoder { return newDecoder(sc) }

// Hint says what to check after a 401, 403 or 404.
func (Messages) Hint(status int, model string) string {
	return live.StatusHint(status, model, "https://api.anthropic.com/v1")
}

// KeyFromEnv returns the first non-empty API key among AGENTSNAP_API_KEY
// and ANTHROPIC_API_KEY, read through getenv (os.Getenv in production),
// and the name of the variable it came from. Surrounding white space is
// trimmed. Both results are empty when none is set.
func KeyFromEnv(getenv func(string) string) (key, varName string) {
	return live.KeyFromEnv(getenv, "AGENTSNAP_API_KEY", "ANTHROPIC_API_KEY")
}
