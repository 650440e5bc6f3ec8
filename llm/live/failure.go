package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
)

// Failure codes of the error finishes this driver yields.
const (
	CodeAuth          = "AUTH"           // HTTP 401/403, or an auth error object
	CodeRateLimit     = "RATE_LIMIT"     // HTTP 429, or a rate-limit error object
	CodeServer        = "SERVER"         // HTTP 5xx, a server error object, a response cut for lack of resources
	CodeBadRequest    = "BAD_REQUEST"    // any other HTTP 4xx
	CodeBadStream     = "BAD_STREAM"     // a frame that is not a chunk object, an oversized line, a non-stream answer, a tool call a log cannot record
	CodeTransport     = "TRANSPORT"      // the connection failed or closed before the response was complete
	CodeContentFilter = "CONTENT_FILTER" // finish_reason content_filter
	CodeProvider      = "PROVIDER"       // an error object in the stream that names no known kind
	CodeConsumed      = "CONSUMED"       // the stream was iterated a second time
)

// Retryable reports whether an error finish with this code may succeed if
// the step is tried again: rate limits, server errors and transport
// failures. The driver already retried a 429 or 5xx answer it got before
// streaming; the runtime owns any retry after that.
func Retryable(code string) bool {
	switch code {
	case CodeRateLimit, CodeServer, CodeTransport:
		return true
	}
	return false
}

// InfrastructureFailure reports whether an error finish with this code
// says the call never reached a working model — bad credentials, an
// unknown model or base URL (BAD_REQUEST), a server or network failure, a
// rate limit, a broken stream or a stream iterated twice — rather than
// how the model behaved. A recorder can refuse to keep such a recording.
// Content filtering and provider errors that name no known kind are
// answers about the model's output, so they and any other code are not.
func InfrastructureFailure(code string) bool {
	switch code {
	case CodeAuth, CodeBadRequest, CodeServer, CodeTransport, CodeRateLimit, CodeBadStream, CodeConsumed:
		return true
	}
	return false
}

// codeForStatus maps an HTTP status to a failure code.
func codeForStatus(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return CodeAuth
	case status == http.StatusTooManyRequests:
		return CodeRateLimit
	case status >= 500:
		return CodeServer
	}
	return CodeBadRequest
}

func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// maxMessage bounds a failure message: enough for a provider's sentence,
// not a whole HTML error page.
const maxMessage = 400

// redacted replaces a secret in any message.
const redacted = secret.Redacted

// Patterns for keys the driver was not given (a proxy's, an echo of another
// key), after the exact values are gone.
var (
	bearerRE = regexp.MustCompile(`(?i)bearer\s+[^\s"',;]+`)
	skKeyRE  = regexp.MustCompile(`sk-[A-Za-z0-9_*.\-]{3,}`)
)

// Scrubber removes secrets from text the driver echoes: every value of the
// driver's credentials, exactly and in every encoding (see internal/secret),
// then the patterns above. It also knows the API's prefix, which starts
// every message.
type Scrubber struct {
	set    *secret.Set // the driver's: its key and header values
	extra  *secret.Set // the recording's the call runs in, or nil
	prefix string
}

// with returns sc scrubbing the secrets of extra too.
func (sc Scrubber) with(extra *secret.Set) Scrubber {
	sc.extra = extra
	return sc
}

// NewScrubber returns a scrubber of these values (shorter ones than
// secret.MinLen are not secrets) for messages that start with prefix.
func NewScrubber(prefix string, secrets ...string) Scrubber {
	s := secret.New()
	for _, v := range secrets {
		s.Add("a secret of the driver", v)
	}
	return Scrubber{set: s, prefix: prefix}
}

// Prefix is the API's prefix of every message ("openai").
func (sc Scrubber) Prefix() string { return sc.prefix }

// Clip scrubs s and bounds its length.
func (sc Scrubber) Clip(s string) string {
	return truncate(sc.scrub(s), maxMessage)
}

// scrub is Clip without the bound.
func (sc Scrubber) scrub(s string) string {
	s = sc.extra.Redact(sc.set.Redact(s))
	s = bearerRE.ReplaceAllString(s, "Bearer "+redacted)
	return skKeyRE.ReplaceAllString(s, "sk-"+redacted)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + cutMark
}

// cutMark ends a text truncate cut.
const cutMark = "…"

// Snippet is the start of a frame, for a BAD_STREAM message.
func Snippet(b []byte) string {
	const n = 60
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// providerError is what an error body or error frame says.
type providerError struct {
	message string
	kind    string // the error's type and string code, for classification
	status  int    // a numeric code that looks like an HTTP status
}

// parseProviderError reads the error shapes OpenAI-compatible servers use:
// {"error":{"message","type","code"}} (OpenAI, DeepSeek),
// {"error":"text"} (Ollama), {"object":"error","message","type","code"}
// (vLLM) and {"detail":...} (FastAPI servers). ok is false for anything else.
func parseProviderError(b []byte) (pe providerError, ok bool) {
	var top struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &top) != nil {
		return pe, false
	}
	var inner struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	var text string
	switch {
	case json.Unmarshal(top.Error, &text) == nil && text != "":
		pe.message = text
	case json.Unmarshal(top.Error, &inner) == nil && (inner.Message != "" || inner.Type != ""):
		pe.message, pe.kind = inner.Message, inner.Type
		pe.addCode(inner.Code)
	case top.Message != "":
		pe.message, pe.kind = top.Message, top.Type
		pe.addCode(top.Code)
	case len(top.Detail) > 0:
		if json.Unmarshal(top.Detail, &text) != nil {
			text = string(top.Detail)
		}
		pe.message = text
	default:
		return pe, false
	}
	return pe, true
}

func (pe *providerError) addCode(raw json.RawMessage) {
	var s string
	var n int
	switch {
	case json.Unmarshal(raw, &n) == nil:
		if n >= 400 && n <= 599 {
			pe.status = n
		}
	case json.Unmarshal(raw, &s) == nil && s != "":
		if n, err := strconv.Atoi(s); err == nil && n >= 400 && n <= 599 {
			pe.status = n
		} else {
			pe.kind += " " + s
		}
	}
}

// code classifies an error object found inside a stream.
func (pe *providerError) code() string {
	if pe.status != 0 {
		return codeForStatus(pe.status)
	}
	k := strings.ToLower(pe.kind)
	switch {
	case strings.Contains(k, "rate") || strings.Contains(k, "quota"):
		return CodeRateLimit
	case strings.Contains(k, "auth") || strings.Contains(k, "api_key") || strings.Contains(k, "permission"):
		return CodeAuth
	case strings.Contains(k, "server") || strings.Contains(k, "overload") ||
		strings.Contains(k, "unavailable") || strings.Contains(k, "timeout"):
		return CodeServer
	}
	return CodeProvider
}

// StreamErrorFinish is the finish for an error object inside a stream.
func StreamErrorFinish(data []byte, sc Scrubber) session.Chunk {
	pe, ok := parseProviderError(data)
	if !ok || pe.message == "" {
		pe.message = "(no message)"
	}
	fin := session.ErrorFinish(pe.code(), sc.Clip(sc.prefix+": the provider sent an error in the stream: "+pe.message))
	fin.Reason.Failure.Status = pe.status
	return fin
}

// statusFinish is the finish for an HTTP error answer with this body; hint
// says what to check. The provider's message is bounded first, so the hint
// is never cut off.
func statusFinish(status int, body []byte, sc Scrubber, hint string) session.Chunk {
	msg := sc.Clip(fmt.Sprintf("%s: HTTP %d %s: %s", sc.prefix, status, http.StatusText(status), bodyMessage(body)))
	fin := session.ErrorFinish(codeForStatus(status), msg+sc.Clip(hint))
	fin.Reason.Failure.Status = status
	return fin
}

// StatusHint is the usual Hint of an API whose base URL looks like
// example: what to check after a 401, 403 or 404.
func StatusHint(status int, model, example string) string {
	switch status {
	case http.StatusUnauthorized:
		return "; check the API key"
	case http.StatusForbidden:
		return fmt.Sprintf("; check that the API key may use model %q", model)
	case http.StatusNotFound:
		return fmt.Sprintf("; check the model name (%q) and that the base URL is the API root, such as %s", model, example)
	}
	return ""
}

// bodyMessage is the provider's message in an error body, or the body's
// text with its white space collapsed when it holds no known error shape.
func bodyMessage(body []byte) string {
	if pe, ok := parseProviderError(body); ok && pe.message != "" {
		return pe.message
	}
	text := strings.Join(strings.Fields(string(bytes.ToValidUTF8(body, []byte("?")))), " ")
	if text == "" {
		return "(empty body)"
	}
	return text
}

// ServedFailure says how a server answers with a recorded failed finish:
// the HTTP status the failure was recorded with, or else the one its code
// stands for (the inverse of how a live answer's status became its code),
// with the code and the message. Every API's server side answers so, so
// an agent meets in replay the status it met while recording.
func ServedFailure(r *session.FinishReason) (status int, code, message string) {
	f := r.Failure
	if f == nil {
		return http.StatusInternalServerError, "", "the model call failed"
	}
	if f.Status >= 400 && f.Status <= 599 {
		return f.Status, f.Code, f.Message
	}
	switch f.Code {
	case CodeAuth:
		return http.StatusUnauthorized, f.Code, f.Message
	case CodeRateLimit:
		return http.StatusTooManyRequests, f.Code, f.Message
	case CodeBadRequest, CodeContentFilter:
		return http.StatusBadRequest, f.Code, f.Message
	}
	return http.StatusInternalServerError, f.Code, f.Message
}
