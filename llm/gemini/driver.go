package gemini

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
)

// Config configures a live Gemini driver: the live driver's. Only BaseURL
// is required; Model is required unless every request names one. BaseURL
// is where the API is: its origin, such as
// https://generativelanguage.googleapis.com, to which v1beta is added; or
// a URL whose path ends in the API version to use (…/v1beta, …/v1,
// …/v1alpha), such as a proxy's https://proxy.example/gemini/v1beta. Calls
// go to {BaseURL}[/v1beta]/models/{model}:streamGenerateContent?alt=sse,
// with the base URL's query kept. APIKey is sent in the x-goog-api-key
// header; a key in the base URL's query (?key=…) is sent there instead, as
// given.
type Config = live.Config

// Driver streams Gemini calls: a [live.Driver] of this package's API.
type Driver = live.Driver

// New returns a Gemini driver for cfg. It fails only when cfg.BaseURL is
// not an absolute http or https URL.
func New(cfg Config) (*Driver, error) {
	return live.New(GenerateContent{}, cfg)
}

// GenerateContent is the Gemini API's streamed generateContent, the client
// side a live driver streams with (live.New(gemini.GenerateContent{}, cfg)).
type GenerateContent struct{}

var _ live.API = GenerateContent{}

// Name is the API's name in llm.Request.API.
func (GenerateContent) Name() string { return API }

// Prefix starts the driver's messages.
func (GenerateContent) Prefix() string { return "gemini" }

// version matches an API version segment: v1, v1beta, v1alpha, v2beta3.
var version = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v\d+((alpha|beta)\d*)?$`) })

// Endpoint is {base}[/v1beta]/{models/model}:streamGenerateContent?alt=sse:
// v1beta is added unless the base URL's path ends in a version. The base
// URL's query is kept as written, so a key in it goes out as given, and
// alt=sse is set in it.
func (GenerateContent) Endpoint(base *url.URL, model string) string {
	u := *base
	if !version().MatchString(path.Base(u.Path)) {
		u = *u.JoinPath("v1beta")
	}
	u = *u.JoinPath(modelPath(model) + ":streamGenerateContent")
	u.RawQuery = withAltSSE(u.RawQuery)
	return u.String()
}

var _ live.Counter = GenerateContent{}

// CountEndpoint is {base}[/v1beta]/{models/model}:countTokens, the base
// URL's query kept as written.
func (GenerateContent) CountEndpoint(base *url.URL, model string) string {
	u := *base
	if !version().MatchString(path.Base(u.Path)) {
		u = *u.JoinPath("v1beta")
	}
	return u.JoinPath(modelPath(model) + ":countTokens").String()
}

// EncodeCount writes a countTokens request: {"contents": …} for a request
// of a conversation alone, as the SDKs send it; one with a system
// instruction, tools or settings as the generateContentRequest of model
// that a call of it sends.
func (GenerateContent) EncodeCount(req *llm.Request, model string) ([]byte, error) {
	body, err := encodeRequest(req)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if len(m) == 1 {
		return body, nil // contents alone
	}
	name, _ := json.Marshal(modelPath(model))
	m["model"] = name
	return json.Marshal(map[string]any{"generateContentRequest": m})
}

// DecodeCount reads countTokens' answer, {"totalTokens": N}.
func (GenerateContent) DecodeCount(body []byte) (int64, error) {
	var a struct {
		TotalTokens *int64 `json:"totalTokens"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, err
	}
	if a.TotalTokens == nil {
		return 0, errors.New("it has no totalTokens")
	}
	return *a.TotalTokens, nil
}

// withAltSSE returns the query raw with alt=sse in place of any alt
// parameter, the other parameters left as written.
func withAltSSE(raw string) string {
	parts := []string{}
	for p := range strings.SplitSeq(raw, "&") {
		if p != "" && !strings.HasPrefix(p, "alt=") && p != "alt" {
			parts = append(parts, p)
		}
	}
	return strings.Join(append(parts, "alt=sse"), "&")
}

// Authorize sends the key in the x-goog-api-key header.
func (GenerateContent) Authorize(h http.Header, key string) { h.Set("X-Goog-Api-Key", key) }

// Encode writes a streamed generateContent request.
func (GenerateContent) Encode(req *llm.Request, _ string) ([]byte, error) {
	return encodeRequest(req)
}

// Decoder reads a streamGenerateContent event stream. A function call the
// answer gives no id gets call_N, N its block's index.
func (GenerateContent) Decoder(sc live.Scrubber) live.Decoder { return newDecoder(sc) }

// DecoderAt is Decoder for the model call at turn and step of a session:
// a function call without an id gets call_TURN_STEP_N. The API gives
// none, and call_N alone repeats in every answer, so a child session
// made in turn 2 would name the same call as a plain tool call of turn 1
// — and be placed there among its parent's calls (file numbers,
// transcript order).
func (GenerateContent) DecoderAt(sc live.Scrubber, turn, step int) live.Decoder {
	d := newDecoder(sc)
	if turn > 0 || step > 0 {
		d.idPrefix = "call_" + strconv.Itoa(turn) + "_" + strconv.Itoa(step) + "_"
	}
	return d
}

// Hint says what to check after an HTTP error a retry cannot fix. The
// Gemini API answers a key it does not know with 400, not 401.
func (GenerateContent) Hint(status int, model string) string {
	if status == http.StatusBadRequest {
		return "; check the API key (the Gemini API answers a bad key with 400) and the request"
	}
	return live.StatusHint(status, model, "https://generativelanguage.googleapis.com")
}

// KeyFromEnv returns the first non-empty API key among AGENTSNAP_API_KEY,
// GOOGLE_API_KEY and GEMINI_API_KEY (the SDKs prefer GOOGLE_API_KEY when
// both are set), read through getenv, and the name of the variable it came
// from. Both are empty when none is set.
func KeyFromEnv(getenv func(string) string) (key, varName string) {
	return live.KeyFromEnv(getenv, "AGENTSNAP_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")
}

// RedactURL shows where a URL points without the secrets it may hold; see
// live.RedactURL.
func RedactURL(raw string) string { return live.RedactURL(raw) }
