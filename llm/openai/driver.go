package openai

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
)

// Defaults used when the matching Config field is zero.
const (
	DefaultMaxRetries  = live.DefaultMaxRetries
	DefaultBackoffBase = live.DefaultBackoffBase
	DefaultMaxBackoff  = live.DefaultMaxBackoff
)

// Sentinel errors returned (wrapped) by [New] and [Driver.Stream].
var (
	ErrBaseURL    = live.ErrBaseURL
	ErrNoModel    = live.ErrNoModel
	ErrBadRequest = live.ErrBadRequest
)

// Config configures a [Driver]. Only BaseURL is required; Model is required
// unless every request names one.
type Config struct {
	// BaseURL is the API root, such as https://api.openai.com/v1,
	// https://api.deepseek.com/v1, http://localhost:8000/v1 (vLLM) or
	// http://localhost:11434/v1 (Ollama). Requests go to
	// {BaseURL}/chat/completions.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer KEY"; empty sends no
	// Authorization header (local servers need none).
	APIKey string
	// Model is the default model; a Request's Model overrides it.
	Model string
	// Header holds extra request headers. Their values are treated as
	// secrets like the key: never logged, scrubbed from messages.
	Header http.Header
	// HTTPClient sends the requests; nil means http.DefaultClient. No
	// redirect to another origin is followed (live.SameOriginClient). Do not
	// give it a Timeout shorter than a whole response stream: cancel the
	// context instead.
	HTTPClient *http.Client
	// Logger receives one record per HTTP attempt (Debug when it succeeds,
	// Warn when it fails), naming the request's session, turn, step and
	// step attempt besides the HTTP attempt; nil logs nothing.
	Logger *slog.Logger
	// MaxRetries is how many times a 429 or 5xx answer is retried before
	// any chunk is yielded; 0 means DefaultMaxRetries, negative means none.
	MaxRetries int
	// BackoffBase is the delay before the first retry, doubled for each
	// later one; 0 means DefaultBackoffBase.
	BackoffBase time.Duration
	// MaxBackoff caps every delay, Retry-After included; 0 means
	// DefaultMaxBackoff.
	MaxBackoff time.Duration
	// SendReasoning sends the reasoning parts of assistant messages back as
	// reasoning_content. DeepSeek's thinking mode wants this for the tool
	// calls of the current turn; other providers ignore or reject it.
	SendReasoning bool
	// Sleep waits between retries; nil waits on a timer and returns early
	// with ctx.Err() when ctx is done. Tests set it to record delays
	// without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Driver streams Chat Completions: a [live.Driver] of this package's API.
type Driver = live.Driver

// New returns a Chat Completions driver for cfg. It fails only when
// cfg.BaseURL is not an absolute http or https URL.
func New(cfg Config) (*Driver, error) {
	return live.New(Chat{SendReasoning: cfg.SendReasoning}, live.Config{
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

// Chat is the Chat Completions API, the client side of it a live driver
// streams with (live.New(openai.Chat{}, cfg)).
type Chat struct {
	// SendReasoning sends reasoning parts back as reasoning_content (see
	// Config).
	SendReasoning bool
}

var _ live.API = Chat{}

// Name is the API's name in llm.Request.API.
func (Chat) Name() string { return API }

// Prefix starts the driver's messages.
func (Chat) Prefix() string { return "openai" }

// Endpoint is {base}/chat/completions.
func (Chat) Endpoint(base *url.URL, _ string) string {
	return base.JoinPath("chat/completions").String()
}

// Authorize sends the key as a bearer token.
func (Chat) Authorize(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// Encode writes a streamed Chat Completions request.
func (c Chat) Encode(req *llm.Request, model string) ([]byte, error) {
	return encodeRequest(req, model, c.SendReasoning)
}

// Decoder reads a chat.completion.chunk stream.
func (Chat) Decoder(sc live.Scrubber) live.Decoder { return newDecoder(sc) }

// Hint says what to check after a 401, 403 or 404.
func (Chat) Hint(status int, model string) string {
	return live.StatusHint(status, model, "https://api.openai.com/v1")
}

// KeyFromEnv returns the first non-empty API key among AGENTSNAP_API_KEY,
// OPENAI_API_KEY and DEEPSEEK_API_KEY, read through getenv (os.Getenv in
// production), and the name of the variable it came from. Surrounding
// white space is trimmed. Both results are empty when none is set.
func KeyFromEnv(getenv func(string) string) (key, varName string) {
	return live.KeyFromEnv(getenv, "AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY")
}

// RedactURL shows where a URL points without the secrets it may hold; see
// live.RedactURL.
func RedactURL(raw string) string { return live.RedactURL(raw) }

// Failure codes, Retryable and InfrastructureFailure are the live
// driver's; see package live.
const (
	CodeAuth          = live.CodeAuth
	CodeRateLimit     = live.CodeRateLimit
	CodeServer        = live.CodeServer
	CodeBadRequest    = live.CodeBadRequest
	CodeBadStream     = live.CodeBadStream
	CodeTransport     = live.CodeTransport
	CodeContentFilter = live.CodeContentFilter
	CodeProvider      = live.CodeProvider
	CodeConsumed      = live.CodeConsumed
)

// Retryable reports whether an error finish with this code may succeed if
// the step is tried again; see live.Retryable.
func Retryable(code string) bool { return live.Retryable(code) }

// InfrastructureFailure reports whether an error finish with this code
// says the call never reached a working model; see
// live.InfrastructureFailure.
func InfrastructureFailure(code string) bool { return live.InfrastructureFailure(code) }
