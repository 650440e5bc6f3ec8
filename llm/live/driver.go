package live

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/internal/wait"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Defaults used when the matching Config field is zero.
const (
	DefaultMaxRetries  = 2
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultMaxBackoff  = 20 * time.Second
)

// Sentinel errors returned (wrapped) by [New] and [Driver.Stream].
var (
	// ErrBaseURL means Config.BaseURL is not an absolute http(s) URL.
	ErrBaseURL = errors.New("live: bad base URL")
	// ErrNoModel means neither the request nor the driver names a model.
	ErrNoModel = errors.New("live: no model")
	// ErrBadRequest means the request cannot be encoded (a nil request or a
	// tool whose parameters are not JSON).
	ErrBadRequest = errors.New("live: request cannot be encoded")
)

// Config configures a [Driver]. Only BaseURL is required; Model is required
// unless every request names one.
type Config struct {
	// BaseURL is the API root the API's endpoint is found under, such as
	// https://api.openai.com/v1.
	BaseURL string
	// APIKey travels as the API carries keys (API.Authorize); empty sends
	// none (local servers need none).
	APIKey string
	// Model is the default model; a Request's Model overrides it.
	Model string
	// Header holds extra request headers. Their values are treated as
	// secrets like the key: never logged, scrubbed from messages.
	Header http.Header
	// HTTPClient sends the requests; nil means http.DefaultClient. The
	// driver sends them through a copy that follows no redirect to another
	// origin (SameOriginClient). Do not
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
	// Sleep waits between retries; nil waits on a timer and returns early
	// with ctx.Err() when ctx is done. Tests set it to record delays
	// without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Driver streams the calls of one model API. It is safe for concurrent
// use; its configuration is fixed by [New].
type Driver struct {
	api         API
	base        *url.URL
	host        string // host:port of the endpoint, the only part of it messages name
	key         string
	model       string
	header      http.Header
	client      *http.Client
	log         *slog.Logger
	maxAttempts int
	backoffBase time.Duration
	maxBackoff  time.Duration
	sleep       func(context.Context, time.Duration) error
	scrub       Scrubber
	creds       *secret.Set // what the driver sends as credentials
}

var _ llm.Driver = (*Driver)(nil)

// New returns a driver of api for cfg. It fails only when cfg.BaseURL is
// not an absolute http or https URL.
func New(api API, cfg Config) (*Driver, error) {
	creds := credentials(api, cfg)
	// Messages lose every header value, credential or not.
	scrub := secret.New()
	scrub.Merge(creds)
	for name, vs := range cfg.Header {
		for _, v := range vs {
			scrub.Add("the "+strings.ToLower(name)+" header", v)
		}
	}
	u, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if why := badBase(cfg.BaseURL, u, err); why != "" {
		// The URL itself is not echoed: a proxy URL may carry a token.
		return nil, fmt.Errorf("%s: %w: %s; want the API's root as an absolute http or https URL, such as https://api.openai.com/v1, https://api.anthropic.com or https://generativelanguage.googleapis.com", api.Prefix(), ErrBaseURL, why)
	}
	d := &Driver{
		api:         api,
		base:        u,
		host:        u.Host,
		key:         cfg.APIKey,
		model:       cfg.Model,
		header:      cfg.Header.Clone(),
		client:      cfg.HTTPClient,
		log:         cfg.Logger,
		maxAttempts: 1 + cfg.MaxRetries,
		backoffBase: cfg.BackoffBase,
		maxBackoff:  cfg.MaxBackoff,
		sleep:       cfg.Sleep,
		scrub:       Scrubber{set: scrub, prefix: api.Prefix()},
		creds:       creds,
	}
	switch {
	case cfg.MaxRetries == 0:
		d.maxAttempts = 1 + DefaultMaxRetries
	case cfg.MaxRetries < 0:
		d.maxAttempts = 1
	}
	// The key goes to the base URL's origin only, redirected or not.
	d.client = SameOriginClient(d.client)
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.backoffBase <= 0 {
		d.backoffBase = DefaultBackoffBase
	}
	if d.maxBackoff <= 0 {
		d.maxBackoff = DefaultMaxBackoff
	}
	if d.sleep == nil {
		d.sleep = wait.Sleep
	}
	return d, nil
}

// API returns the driver's API.
func (d *Driver) API() API { return d.api }

// Model returns the driver's default model, the one used for requests that
// name none.
func (d *Driver) Model() string { return d.model }

// Stream starts one streamed call of the driver's API for req. It returns
// an error only when the call cannot start for a local reason: no model
// ([ErrNoModel]) or a request that cannot be encoded ([ErrBadRequest]).
// The HTTP request is sent when the sequence is iterated, and every later
// failure is an error finish chunk. The sequence may be iterated once; a
// second iteration yields only an error finish with code CONSUMED.
// Stopping the iteration early closes the connection.
func (d *Driver) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	p := d.api.Prefix()
	if req == nil {
		return nil, fmt.Errorf("%s: %w: nil request", p, ErrBadRequest)
	}
	model := req.Model
	if model == "" {
		model = d.model
	}
	where := fmt.Sprintf("session %q turn %d step %d", req.Session.ID, req.Turn, req.Step)
	if model == "" {
		return nil, fmt.Errorf("%s: %w for %s: set Config.Model or Request.Model", p, ErrNoModel, where)
	}
	body, err := d.api.Encode(req, model)
	if err != nil {
		return nil, fmt.Errorf("%s: %w for %s: %w", p, ErrBadRequest, where, err)
	}
	endpoint := d.api.Endpoint(d.base, model)
	var header http.Header
	if ch, ok := d.api.(callHeader); ok {
		header = ch.CallHeader(req)
	}
	var used atomic.Bool
	return func(yield func(llm.Chunk) bool) {
		if used.Swap(true) {
			yield(session.ErrorFinish(CodeConsumed, p+": this stream was already iterated; call Stream again for a new model call"))
			return
		}
		d.run(ctx, endpoint, body, call{session: req.Session.ID, turn: req.Turn, step: req.Step, stepAttempt: req.Attempt, model: model, header: header}, yield)
	}, nil
}

// KeyFromEnv returns the first non-empty value among the variables names,
// read through getenv (os.Getenv in production), and the name of the
// variable it came from. Surrounding white space is trimmed. Both results
// are empty when none is set.
func KeyFromEnv(getenv func(string) string, names ...string) (key, varName string) {
	for _, name := range names {
		if k := strings.TrimSpace(getenv(name)); k != "" {
			return k, name
		}
	}
	return "", ""
}

// credentials gathers what a driver for cfg sends as credentials: the key
// as the API carries it, the credential headers of cfg.Header, and the
// credentials of the base URL's query and user info.
func credentials(api API, cfg Config) *secret.Set {
	s := secret.New()
	if cfg.APIKey != "" {
		h := http.Header{}
		api.Authorize(h, cfg.APIKey)
		s.AddHeader(h)
	}
	s.AddHeader(cfg.Header)
	s.AddURL("the base URL", cfg.BaseURL)
	// net/http sends the base URL's user info as a Basic Authorization
	// header when the driver sets none.
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.User != nil && cfg.APIKey == "" {
		pass, _ := u.User.Password()
		basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass))
		s.AddHeader(http.Header{"Authorization": {"Basic " + basic}})
	}
	return s
}

// Credentials returns every credential the driver sends, by where it
// travels ("the bearer token in the Authorization header", "the key= query
// parameter of the base URL", ...): the values a recording must never
// contain. Values shorter than 8 bytes are not among them.
func (d *Driver) Credentials() map[string]string { return d.creds.Values() }

// RedactURL shows where a URL points without the secrets it may hold: the
// scheme, host and path, the names of its query parameters with every
// value redacted, and no user info or fragment. It is what messages and
// logs may name.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(the given base URL)"
	}
	out := u.Scheme + "://" + u.Host + u.EscapedPath()
	if u.RawQuery == "" {
		return out
	}
	var names []string
	for pair := range strings.SplitSeq(u.RawQuery, "&") {
		// A part without "=" may be a bare token: all of it goes.
		if name, _, ok := strings.Cut(pair, "="); ok {
			names = append(names, name+"="+secret.Redacted)
		} else if pair != "" {
			names = append(names, secret.Redacted)
		}
	}
	return out + "?" + strings.Join(names, "&")
}

// badBase says what is wrong with base URL raw, as parsed (u, err), or ""
// when it is an absolute http or https URL; it names no part of it.
func badBase(raw string, u *url.URL, err error) string {
	switch {
	case !strings.Contains(raw, "://") && (err != nil || u.Opaque != ""):
		// localhost:11434/v1 parses as the scheme "localhost", and
		// 127.0.0.1:8080/v1 not at all: a host and port without a scheme.
		return "it has no scheme (http:// or https://)"
	case err != nil:
		return "it does not parse as a URL"
	case u.Scheme == "":
		return "it has no scheme (http:// or https://)"
	case u.Scheme != "http" && u.Scheme != "https":
		return "its scheme is neither http nor https"
	case u.Host == "":
		return "it has no host"
	}
	return ""
}
