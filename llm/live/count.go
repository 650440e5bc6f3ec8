package live

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Counter is an API with an endpoint that counts a request's input tokens
// without a model call (Anthropic's count_tokens): a Driver of it is an
// llm.TokenCounter.
type Counter interface {
	// CountEndpoint is the URL of a token count of model at base.
	CountEndpoint(base *url.URL, model string) string
	// EncodeCount writes the body of a token count of req for model.
	EncodeCount(req *llm.Request, model string) ([]byte, error)
	// DecodeCount reads the count from the endpoint's answer.
	DecodeCount(body []byte) (int64, error)
}

// CountError is a token count that failed outside the agent's request's
// content: the API answered an HTTP error status (after the retries), or
// the request never got an answer. Failure is what a model call's failed
// finish holds — its code, its message naming the count and scrubbed of
// the driver's secrets, and the status (0 when no answer came) — so the
// count can be recorded and served again as a failed call is
// (ServedFailure).
type CountError struct {
	Failure session.Failure
}

func (e *CountError) Error() string { return e.Failure.Message }

// countFailed is the CountError of a failed finish fin of the count where.
func countFailed(fin session.Chunk, where string) *CountError {
	f := *fin.Reason.Failure
	f.Message = fmt.Sprintf("%s (%s)", f.Message, where)
	return &CountError{Failure: f}
}

var _ llm.TokenCounter = (*Driver)(nil)

// CountTokens implements llm.TokenCounter: one whole (not streamed) POST
// to the API's token counting endpoint with what a model call of req
// sends — the key, the API's headers, the call's own (anthropic-beta),
// the settings and breakpoints of a request decoded from this API — and
// the count it answers. A 429 or 5xx answer is retried as a model call's
// is. An API without such an endpoint is an error wrapping
// llm.ErrCannotCount; a request that cannot be sent one wrapping
// ErrNoModel or ErrBadRequest; an HTTP error answer, or none, a
// *CountError.
func (d *Driver) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	p := d.api.Prefix()
	c, ok := d.api.(Counter)
	if !ok {
		// Wrapped in llm.ErrCannotCount: the model is never asked, so the
		// wire layer answers a 4xx saying what to do, which no SDK retries.
		return 0, fmt.Errorf("%s: %w: the API %s has no token counting endpoint agentsnap knows (Anthropic Messages and Gemini have one)", p, llm.ErrCannotCount, d.api.Name())
	}
	if req == nil {
		return 0, fmt.Errorf("%s: %w: nil request", p, ErrBadRequest)
	}
	model := req.Model
	if model == "" {
		model = d.model
	}
	where := fmt.Sprintf("a token count of session %q (after turn %d step %d)", req.Session.ID, req.Turn, req.Step)
	if model == "" {
		return 0, fmt.Errorf("%s: %w for %s: set Config.Model or Request.Model", p, ErrNoModel, where)
	}
	body, err := c.EncodeCount(req, model)
	if err != nil {
		return 0, fmt.Errorf("%s: %w for %s: %w", p, ErrBadRequest, where, err)
	}
	var header http.Header
	if ch, ok := d.api.(callHeader); ok {
		header = ch.CallHeader(req)
	}
	endpoint := c.CountEndpoint(d.base, model)
	rec := secret.FromContext(ctx)
	rec.Merge(d.creds)
	sc := d.scrub.with(rec)
	for attempt := 1; ; attempt++ {
		resp, err := d.send(ctx, endpoint, body, header, "application/json")
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, countFailed(d.requestFailure(err, sc), where)
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		if err != nil {
			return 0, countFailed(transportFinish("reading the answer", err, sc), where)
		}
		if resp.StatusCode/100 == 2 {
			n, err := c.DecodeCount(b)
			if err != nil {
				// A 2xx that is no count: the base URL is no endpoint of
				// this API's (a gateway's page, a proxy without the count
				// endpoint); asking again would get the same.
				return 0, fmt.Errorf("%s: the answer to %s is no token count (%v): %s; %s answered HTTP %d but not the API's count: point the base URL at the API itself (or at a proxy that serves its token counting endpoint), or have the agent not count tokens while it runs under agentsnap",
					p, where, err, sc.Clip(Snippet(b)), sc.Clip(RedactURL(endpoint)), resp.StatusCode)
			}
			return n, nil
		}
		fin := statusFinish(resp.StatusCode, b, sc, d.api.Hint(resp.StatusCode, model))
		if attempt >= d.maxAttempts || !retryableStatus(resp.StatusCode) {
			return 0, countFailed(fin, where)
		}
		if d.sleep(ctx, d.backoff(attempt, resp.Header.Get("Retry-After"))) != nil || ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
}
