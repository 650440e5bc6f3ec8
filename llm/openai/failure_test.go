package openai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// noSecrets asserts s holds neither the key nor an Authorization header.
func noSecrets(s string) {
	GinkgoHelper()
	Expect(s).NotTo(ContainSubstring(testKey))
	Expect(s).NotTo(ContainSubstring("0123456789abcdef"))
	Expect(s).NotTo(ContainSubstring("Authorization"))
	Expect(s).NotTo(ContainSubstring("Bearer sk"))
}

var _ = Describe("a failing stream", func() {
	It("ends with an error finish when the provider sends an error object mid-stream, leaving the cut block open", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, _ *http.Request, _ int) {
			startStream(w)
			writeFrames(w, chunk(`{"content":"Par"}`, "null"),
				`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`)
		})
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"Par"}`,
			`{"type":"finish","reason":{"kind":"error","failure":{"message":"openai: the provider sent an error in the stream: ` +
				`The server had an error while processing your request.","code":"SERVER"}}}`,
		}))
	})

	DescribeTable("classifies error objects inside a stream",
		func(frame, code string, status int) {
			chunks := openai.DecodeBody(context.Background(), strings.NewReader("data: "+frame+"\n\n"))
			Expect(last(chunks).Failure.Code).To(Equal(code))
			Expect(last(chunks).Failure.Status).To(Equal(status))
		},
		Entry("a numeric HTTP-like code", `{"error":{"message":"slow down","code":429}}`, openai.CodeRateLimit, 429),
		Entry("a rate-limit type", `{"error":{"message":"slow down","type":"rate_limit_exceeded"}}`, openai.CodeRateLimit, 0),
		Entry("vLLM's error object", `{"object":"error","message":"bad","type":"BadRequestError","code":400}`, openai.CodeBadRequest, 400),
		Entry("Ollama's error string", `{"error":"model crashed"}`, openai.CodeProvider, 0),
		Entry("an overloaded type", `{"error":{"message":"busy","type":"overloaded_error"}}`, openai.CodeServer, 0),
	)

	It("ends with a TRANSPORT finish when the connection drops mid-stream", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, _ *http.Request, _ int) {
			startStream(w)
			writeFrames(w, chunk(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}`, "null"))
			conn, _, err := w.(http.Hijacker).Hijack()
			Expect(err).NotTo(HaveOccurred())
			conn.Close() // no terminating chunk: the client sees a cut body
		})
		chunks := collect(ctx, newDriver(p), userRequest("x"))
		reason := last(chunks)
		Expect(reason.Kind).To(Equal(session.FinishError))
		Expect(reason.Failure.Code).To(Equal(openai.CodeTransport))
		Expect(openai.Retryable(reason.Failure.Code)).To(BeTrue())
		By("not claiming the cut tool call is complete")
		for _, c := range chunks {
			Expect(c.Type).NotTo(Equal(session.ChunkBlockEnd))
		}
	})

	It("ends with a TRANSPORT finish when the server closes cleanly before any finish_reason", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, _ *http.Request, _ int) {
			startStream(w)
			writeFrames(w, chunk(`{"content":"a"}`, "null"))
		})
		reason := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(reason.Failure.Code).To(Equal(openai.CodeTransport))
		Expect(reason.Failure.Message).To(ContainSubstring("the stream ended before the answer was complete"))
	})

	It("ends with a BAD_STREAM finish naming the frame when a frame is not JSON", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"a"}`, "null"), `{"choices":[{"delta":`))
		reason := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(reason.Failure.Code).To(Equal(openai.CodeBadStream))
		Expect(reason.Failure.Message).To(ContainSubstring("frame 2"))
	})

	It("ends with a BAD_STREAM finish when a 200 answer is JSON rather than a stream", func(ctx SpecContext) {
		p := newProvider(failing(http.StatusOK, `{"id":"x","object":"chat.completion","choices":[]}`))
		reason := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(reason.Failure.Code).To(Equal(openai.CodeBadStream))
		Expect(reason.Failure.Message).To(ContainSubstring("answered with JSON, not an event stream; it may not support streaming on this endpoint"))
	})

	It("ends with an AUTH finish carrying the status and the provider's message, never the key", func(ctx SpecContext) {
		var logs lockedBuffer
		p := newProvider(failing(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: `+testKey+
			`. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
		d := newDriver(p, func(c *openai.Config) { c.Logger = jsonLogger(&logs) })
		reason := last(collect(ctx, d, userRequest("x")))
		Expect(reason.Kind).To(Equal(session.FinishError))
		Expect(reason.Failure.Code).To(Equal(openai.CodeAuth))
		Expect(reason.Failure.Status).To(Equal(http.StatusUnauthorized))
		Expect(reason.Failure.Message).To(HavePrefix("openai: HTTP 401 Unauthorized: Incorrect API key provided: [REDACTED]"))
		noSecrets(reason.Failure.Message)
		noSecrets(logs.String())
		By("not retrying an auth failure, though the key was sent")
		Expect(p.Requests()).To(HaveLen(1))
		Expect(p.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer " + testKey))
	})

	It("scrubs a masked key echo and extra header values from messages", func(ctx SpecContext) {
		p := newProvider(failing(http.StatusForbidden, `{"error":{"message":"key sk-proj-****cdef and org org-hidden-value refused"}}`))
		d := newDriver(p, func(c *openai.Config) { c.Header = http.Header{"Openai-Organization": {"org-hidden-value"}} })
		reason := last(collect(ctx, d, userRequest("x")))
		Expect(reason.Failure.Message).To(Equal(`openai: HTTP 403 Forbidden: key sk-[REDACTED] and org [REDACTED] refused; ` +
			`check that the API key may use model "test-model"`))
		Expect(p.Requests()[0].Header.Get("Openai-Organization")).To(Equal("org-hidden-value"))
	})

	It("retries a 429 before the stream, logging each attempt without the key or headers", func(ctx SpecContext) {
		var logs lockedBuffer
		var waits delays
		p := newProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				failing(http.StatusTooManyRequests, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)(w, r, n)
				return
			}
			streaming(chunk(`{"content":"ok"}`, `"stop"`))(w, r, n)
		})
		d := newDriver(p, func(c *openai.Config) {
			c.Logger, c.Sleep, c.BackoffBase = jsonLogger(&logs), waits.sleep, 250*time.Millisecond
		})
		chunks := collect(ctx, d, userRequest("x"))
		Expect(last(chunks).Kind).To(Equal(session.FinishStop))
		Expect(p.Requests()).To(HaveLen(2))
		Expect(waits.Got()).To(Equal([]time.Duration{250 * time.Millisecond}))
		Expect(logs.String()).To(SatisfyAll(
			MatchRegexp(`"level":"WARN","msg":"openai: attempt","session":"root","turn":1,"step":1,"stepAttempt":1,"attempt":1,"maxAttempts":3,"model":"test-model","status":429,"code":"RATE_LIMIT",.*"retryIn":250000000`),
			MatchRegexp(`"level":"DEBUG","msg":"openai: attempt","session":"root","turn":1,"step":1,"stepAttempt":1,"attempt":2,"maxAttempts":3,"model":"test-model","status":200`),
		))
		noSecrets(logs.String())
	})

	It("gives up on 5xx after the configured retries, with doubling delays capped by MaxBackoff", func(ctx SpecContext) {
		var waits delays
		p := newProvider(failing(http.StatusInternalServerError, `{"error":{"message":"upstream exploded","type":"server_error"}}`))
		d := newDriver(p, func(c *openai.Config) {
			c.Sleep, c.BackoffBase, c.MaxBackoff, c.MaxRetries = waits.sleep, time.Second, 3*time.Second, 3
		})
		reason := last(collect(ctx, d, userRequest("x")))
		Expect(reason.Failure).To(Equal(&session.Failure{
			Code:    openai.CodeServer,
			Status:  http.StatusInternalServerError,
			Message: "openai: HTTP 500 Internal Server Error: upstream exploded (gave up after 4 attempts)",
		}))
		Expect(p.Requests()).To(HaveLen(4))
		Expect(waits.Got()).To(Equal([]time.Duration{time.Second, 2 * time.Second, 3 * time.Second}))
	})

	It("honours Retry-After up to MaxBackoff", func(ctx SpecContext) {
		var waits delays
		p := newProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Retry-After", []string{"", "3", "600", ""}[n])
			failing(http.StatusServiceUnavailable, "<html>busy</html>")(w, r, n)
		})
		d := newDriver(p, func(c *openai.Config) {
			c.Sleep, c.BackoffBase, c.MaxBackoff, c.MaxRetries = waits.sleep, 100*time.Millisecond, 10*time.Second, 2
		})
		reason := last(collect(ctx, d, userRequest("x")))
		Expect(waits.Got()).To(Equal([]time.Duration{3 * time.Second, 10 * time.Second}))
		Expect(reason.Failure.Message).To(ContainSubstring("HTTP 503 Service Unavailable: <html>busy</html>"))
	})

	DescribeTable("does not retry what a retry cannot fix, or when told not to",
		func(ctx SpecContext, status, maxRetries int, code string) {
			p := newProvider(failing(status, `{"error":{"message":"nope"}}`))
			reason := last(collect(ctx, newDriver(p, func(c *openai.Config) { c.MaxRetries = maxRetries }), userRequest("x")))
			Expect(reason.Failure.Code).To(Equal(code))
			Expect(reason.Failure.Status).To(Equal(status))
			Expect(p.Requests()).To(HaveLen(1))
		},
		Entry("400", http.StatusBadRequest, 0, openai.CodeBadRequest),
		Entry("404 model not found", http.StatusNotFound, 0, openai.CodeBadRequest),
		Entry("403", http.StatusForbidden, 0, openai.CodeAuth),
		Entry("503 with retries disabled", http.StatusServiceUnavailable, -1, openai.CodeServer),
	)

	It("ends with a TRANSPORT finish that names no URL when the server cannot be reached", func(ctx SpecContext) {
		srv := httptest.NewServer(http.NotFoundHandler())
		base := srv.URL + "/v1?token=query-secret-value"
		srv.Close()
		d, err := openai.New(openai.Config{BaseURL: base, Model: "m"})
		Expect(err).NotTo(HaveOccurred())
		reason := last(collect(ctx, d, userRequest("x")))
		Expect(reason.Failure.Code).To(Equal(openai.CodeTransport))
		Expect(reason.Failure.Message).To(ContainSubstring("connection refused"))
		Expect(reason.Failure.Message).NotTo(ContainSubstring("query-secret-value"))
	})
})

var _ = Describe("cancellation", func() {
	It("finishes aborted promptly when the context is cancelled mid-stream", func(ctx SpecContext) {
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		p := newProvider(func(w http.ResponseWriter, r *http.Request, _ int) {
			startStream(w)
			writeFrames(w, chunk(`{"content":"partial"}`, "null"))
			select { // hold the stream open until the client leaves or the spec ends
			case <-r.Context().Done():
			case <-release:
			}
		})
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		seq, err := newDriver(p).Stream(callCtx, userRequest("x"))
		Expect(err).NotTo(HaveOccurred())
		var chunks []session.Chunk
		for c := range seq {
			chunks = append(chunks, c)
			if c.Type == session.ChunkTextDelta {
				cancel()
			}
		}
		Expect(openai.CheckProtocol(chunks)).To(Succeed())
		Expect(jsonLines(chunks)).To(Equal([]string{
			`{"type":"block-start","index":0,"blockType":"text"}`,
			`{"type":"text-delta","index":0,"text":"partial"}`,
			`{"type":"finish","reason":{"kind":"aborted"}}`,
		}))
	}, NodeTimeout(10*time.Second))

	It("finishes aborted when the context is cancelled during a retry's backoff", func(ctx SpecContext) {
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		p := newProvider(failing(http.StatusTooManyRequests, `{"error":{"message":"slow"}}`))
		d := newDriver(p, func(c *openai.Config) {
			c.Sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
		})
		reason := last(collect(callCtx, d, userRequest("x")))
		Expect(reason).To(Equal(&session.FinishReason{Kind: session.FinishAborted}))
		Expect(p.Requests()).To(HaveLen(1))
	})

	It("finishes aborted without a request when the context is already done", func() {
		p := newProvider(streaming())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		reason := last(collect(ctx, newDriver(p), userRequest("x")))
		Expect(reason.Kind).To(Equal(session.FinishAborted))
		Expect(p.Requests()).To(BeEmpty())
	})
})
