package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// call says which model call a log record is about: the session, turn,
// step and step attempt of the request, and the model.
type call struct {
	session                 string
	turn, step, stepAttempt int
	model                   string
	header                  http.Header // the call's own (API.CallHeader), sent besides the driver's
}

// run performs one model call and yields its chunks, ending with exactly
// one finish unless yield stops early.
func (d *Driver) run(ctx context.Context, endpoint string, body []byte, c call, yield func(session.Chunk) bool) {
	// A recording that runs this call learns what it must never contain
	// before anything comes back, and the call's messages lose what the
	// recording knows besides (the key variables, even those not sent).
	rec := secret.FromContext(ctx)
	rec.Merge(d.creds)
	sc := d.scrub.with(rec)
	resp, fin := d.open(ctx, endpoint, body, c, sc)
	if resp == nil {
		yield(fin)
		return
	}
	defer resp.Body.Close()
	dec := d.api.Decoder(sc)
	if at, ok := d.api.(decoderAt); ok {
		dec = at.DecoderAt(sc, c.turn, c.step)
	}
	DecodeStream(ctx, resp.Body, dec, sc, yield)
}

// decoderAt is an API whose decoder makes up what the answer lacks (the
// ids of its tool calls, for Gemini) from the call's turn and step, so
// that it never repeats within a session.
type decoderAt interface {
	DecoderAt(sc Scrubber, turn, step int) Decoder
}

// open sends the request, retrying 429 and 5xx answers, and returns the
// response of a stream that can be read, or nil and the finish to yield.
func (d *Driver) open(ctx context.Context, endpoint string, body []byte, c call, sc Scrubber) (*http.Response, session.Chunk) {
	for attempt := 1; ; attempt++ {
		resp, err := d.send(ctx, endpoint, body, c.header, "text/event-stream")
		if err != nil {
			if ctx.Err() != nil {
				return nil, session.Finish(session.FinishAborted)
			}
			fin := d.requestFailure(err, sc)
			d.logAttempt(ctx, c, attempt, 0, &fin, -1)
			return nil, fin
		}
		if resp.StatusCode/100 == 2 {
			if fin, ok := d.checkStream(resp, sc); !ok {
				d.logAttempt(ctx, c, attempt, resp.StatusCode, &fin, -1)
				return nil, fin
			}
			d.logAttempt(ctx, c, attempt, resp.StatusCode, nil, -1)
			return resp, session.Chunk{}
		}
		errBody, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		fin := statusFinish(resp.StatusCode, errBody, sc, d.api.Hint(resp.StatusCode, c.model))
		if attempt >= d.maxAttempts || !retryableStatus(resp.StatusCode) {
			if attempt > 1 {
				fin.Reason.Failure.Message += fmt.Sprintf(" (gave up after %d attempts)", attempt)
			}
			d.logAttempt(ctx, c, attempt, resp.StatusCode, &fin, -1)
			return nil, fin
		}
		delay := d.backoff(attempt, resp.Header.Get("Retry-After"))
		d.logAttempt(ctx, c, attempt, resp.StatusCode, &fin, delay)
		if d.sleep(ctx, delay) != nil || ctx.Err() != nil {
			return nil, session.Finish(session.FinishAborted)
		}
	}
}

// send makes one HTTP request, with the driver's headers and the call's
// own (a value the driver's already has is sent once), accepting accept
// (an event stream, or JSON for a whole answer). A transport error
// is returned without its URL (url.Error), which could carry a token in a
// query string.
func (d *Driver) send(ctx context.Context, endpoint string, body []byte, own http.Header, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range d.header {
		req.Header[k] = vs
	}
	for k, vs := range own {
		k = http.CanonicalHeaderKey(k)
		for _, v := range vs {
			if !slices.Contains(req.Header[k], v) {
				// Clipped: the driver's values are shared by every call.
				req.Header[k] = append(slices.Clip(req.Header[k]), v)
			}
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if d.key != "" {
		d.api.Authorize(req.Header, d.key)
	}
	resp, err := d.client.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return resp, err
}

// checkStream refuses a 2xx answer that is JSON rather than an event
// stream: a server that ignored stream:true, or a proxy's error. ok is
// false when the response must not be decoded; its body is closed then.
func (d *Driver) checkStream(resp *http.Response, sc Scrubber) (session.Chunk, bool) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" {
		return session.Chunk{}, true
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if _, ok := parseProviderError(b); ok {
		return StreamErrorFinish(b, sc), false
	}
	return session.ErrorFinish(CodeBadStream, sc.prefix+": the server answered with JSON, not an event stream; "+
		"it may not support streaming on this endpoint"), false
}

// backoff is the delay before retry number attempt: BackoffBase doubled per
// earlier retry, or Retry-After when the server asks for longer, both
// capped by MaxBackoff. There is no jitter, so logs and tests are
// repeatable.
func (d *Driver) backoff(attempt int, retryAfter string) time.Duration {
	delay := d.backoffBase
	for i := 1; i < attempt && delay < d.maxBackoff; i++ {
		delay *= 2 // stops at the cap, so it cannot overflow
	}
	delay = min(delay, d.maxBackoff)
	if s, err := strconv.Atoi(retryAfter); err == nil && s > 0 {
		delay = max(delay, min(time.Duration(s)*time.Second, d.maxBackoff))
	} else if t, err := http.ParseTime(retryAfter); err == nil {
		delay = max(delay, min(time.Until(t), d.maxBackoff))
	}
	return delay
}

// logAttempt records one HTTP try. It names the model call (session,
// turn, step, stepAttempt: the runtime's try of the step), the HTTP
// attempt within it, the status, the model and, for a failure, its code
// and scrubbed message and the delay before the next try (retryIn < 0: no
// retry). Never a header or the URL.
func (d *Driver) logAttempt(ctx context.Context, c call, attempt, status int, fin *session.Chunk, retryIn time.Duration) {
	attrs := []slog.Attr{
		slog.String("session", c.session),
		slog.Int("turn", c.turn),
		slog.Int("step", c.step),
		slog.Int("stepAttempt", c.stepAttempt),
		slog.Int("attempt", attempt),
		slog.Int("maxAttempts", d.maxAttempts),
		slog.String("model", c.model),
		slog.Int("status", status),
	}
	level := slog.LevelDebug
	if fin != nil {
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("code", fin.Reason.Failure.Code), slog.String("error", fin.Reason.Failure.Message))
		if retryIn >= 0 {
			attrs = append(attrs, slog.Duration("retryIn", retryIn))
		}
	}
	d.log.LogAttrs(ctx, level, d.api.Prefix()+": attempt", attrs...)
}

// requestFailure is the finish for a request that got no answer. It names
// the server by host:port only: the rest of the URL could carry a token.
func (d *Driver) requestFailure(err error, sc Scrubber) session.Chunk {
	var msg string
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok {
		msg = fmt.Sprintf(sc.prefix+": cannot resolve the host of the base URL (%s): %v; check the host name and the network", d.host, dnsErr)
	} else if errors.Is(err, syscall.ECONNREFUSED) {
		msg = fmt.Sprintf(sc.prefix+": %s refused the connection (%v); check that the server is running and that the base URL names its host and port", d.host, err)
	} else {
		msg = fmt.Sprintf(sc.prefix+": the request to %s failed: %v; check the network and the base URL", d.host, err)
	}
	return session.ErrorFinish(CodeTransport, sc.Clip(msg))
}

// transportFinish is the finish for a network failure.
func transportFinish(what string, err error, sc Scrubber) session.Chunk {
	return session.ErrorFinish(CodeTransport, sc.Clip(fmt.Sprintf("%s: %s: %v", sc.prefix, what, err)))
}

// DecodeStream reads an answer's event stream with dec and yields its
// chunks, ending with exactly one finish unless yield stops early. It ends
// at [DONE], or at the end of the input once dec says the answer is
// complete (then only the usage may be missing).
func DecodeStream(ctx context.Context, r io.Reader, dec Decoder, sc Scrubber, yield func(session.Chunk) bool) {
	sse := newSSEReader(r, maxFrame)
	for {
		if ctx.Err() != nil {
			yield(session.Finish(session.FinishAborted))
			return
		}
		data, err := sse.next()
		if err != nil {
			if ctx.Err() == nil && dec.Complete() && !errors.Is(err, errFrameTooLarge) {
				break
			}
			yield(readFailure(ctx, err, sc))
			return
		}
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			break
		}
		chunks, fin := dec.Event(string(sse.event), data)
		for _, c := range chunks {
			if !yield(c) {
				return
			}
		}
		if fin != nil {
			yield(*fin)
			return
		}
	}
	for _, c := range dec.End() {
		if !yield(c) {
			return
		}
	}
}

// readFailure is the finish for a stream that stopped before it was
// complete.
func readFailure(ctx context.Context, err error, sc Scrubber) session.Chunk {
	switch {
	case ctx.Err() != nil:
		return session.Finish(session.FinishAborted)
	case errors.Is(err, errFrameTooLarge):
		return session.ErrorFinish(CodeBadStream, err.Error())
	case err == io.EOF:
		return session.ErrorFinish(CodeTransport, sc.prefix+": the stream ended before the answer was complete")
	}
	return transportFinish("the connection failed before the stream finished", err, sc)
}
