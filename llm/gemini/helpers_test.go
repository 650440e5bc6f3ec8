package gemini_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

// testKey is a made-up key; specs assert it never leaks.
const testKey = "AIza-test-0123456789abcdefSECRET"

// provider is a stand-in server for the endpoint; its handler gets the
// 1-based number of the request.
type provider = drivertest.Server

func newProvider(handle func(w http.ResponseWriter, r *http.Request, n int)) *provider {
	p := drivertest.NewServer(GinkgoT(), func(w http.ResponseWriter, r *http.Request, n int) {
		defer GinkgoRecover()
		handle(w, r, n)
	})
	return p
}

// streaming serves events as one stream, each a data line and a blank
// line, as the Gemini API does.
func streaming(events ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}
}

// failing answers with an HTTP error status and a JSON body.
func failing(status int, body string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// event is one streamed GenerateContentResponse with these parts (JSON)
// and, when not empty, a finishReason and usageMetadata (JSON).
func event(parts, finish, usage string) string {
	cand := `{"content":{"role":"model","parts":[` + parts + `]},"index":0`
	if finish != "" {
		cand += `,"finishReason":"` + finish + `"`
	}
	out := `{"candidates":[` + cand + `}]`
	if usage != "" {
		out += `,"usageMetadata":` + usage
	}
	return out + `,"modelVersion":"gemini-2.5-flash","responseId":"r-1"}`
}

// newDriver builds a driver for p with the test key, a model, and
// retries that do not wait; adjust changes the config first.
func newDriver(p *provider, adjust ...func(*gemini.Config)) *gemini.Driver {
	cfg := gemini.Config{BaseURL: p.URL, APIKey: testKey, Model: "gemini-2.5-flash", Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
	for _, f := range adjust {
		f(&cfg)
	}
	d, err := gemini.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	return d
}

// collect runs one call and returns every chunk, checking the protocol.
func collect(ctx context.Context, d *gemini.Driver, req *llm.Request) []session.Chunk {
	GinkgoHelper()
	seq, err := d.Stream(ctx, req)
	Expect(err).NotTo(HaveOccurred())
	chunks := drain(seq)
	Expect(gemini.CheckProtocol(chunks)).To(Succeed())
	return chunks
}

var (
	userRequest = drivertest.UserRequest
	drain       = drivertest.Drain
	jsonLines   = drivertest.JSONLines
)

// last returns the reason of the finish chunk that ends chunks.
func last(chunks []session.Chunk) *session.FinishReason { return drivertest.Last(GinkgoT(), chunks) }
