package openai_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// testKey is a made-up key; specs assert it never leaks.
const testKey = "sk-test-0123456789abcdefSECRET"

// provider is a stand-in server for the endpoint; its handler gets the
// 1-based number of the request.
type provider = drivertest.Server

func newProvider(handle func(w http.ResponseWriter, r *http.Request, n int)) *provider {
	p := drivertest.NewServer(GinkgoT(), func(w http.ResponseWriter, r *http.Request, n int) {
		defer GinkgoRecover()
		handle(w, r, n)
	})
	p.URL += "/v1"
	return p
}

// streaming serves frames as one event stream, flushing after each, then
// [DONE].
func streaming(frames ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		startStream(w)
		writeFrames(w, frames...)
		writeFrames(w, "[DONE]")
	}
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func writeFrames(w http.ResponseWriter, frames ...string) {
	for _, f := range frames {
		fmt.Fprintf(w, "data: %s\n\n", f)
		w.(http.Flusher).Flush()
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

// delays records the backoff delays a driver asks for, without waiting.
type delays struct {
	mu  sync.Mutex
	got []time.Duration
}

func (d *delays) sleep(ctx context.Context, t time.Duration) error {
	d.mu.Lock()
	d.got = append(d.got, t)
	d.mu.Unlock()
	return ctx.Err()
}

func (d *delays) Got() []time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Duration(nil), d.got...)
}

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newDriver builds a driver for p with the test key, a model, and
// retries that do not wait; adjust changes the config first.
func newDriver(p *provider, adjust ...func(*openai.Config)) *openai.Driver {
	cfg := openai.Config{BaseURL: p.URL, APIKey: testKey, Model: "test-model", Sleep: (&delays{}).sleep}
	for _, f := range adjust {
		f(&cfg)
	}
	d, err := openai.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	return d
}

// collect runs one call and returns every chunk, checking the protocol.
func collect(ctx context.Context, d *openai.Driver, req *llm.Request) []session.Chunk {
	GinkgoHelper()
	seq, err := d.Stream(ctx, req)
	Expect(err).NotTo(HaveOccurred())
	chunks := drain(seq)
	Expect(openai.CheckProtocol(chunks)).To(Succeed())
	return chunks
}

// jsonLogger logs every level as JSON into buf.
func jsonLogger(buf io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

var (
	userRequest = drivertest.UserRequest
	drain       = drivertest.Drain
	jsonLines   = drivertest.JSONLines
)

// last returns the reason of the finish chunk that ends chunks.
func last(chunks []session.Chunk) *session.FinishReason { return drivertest.Last(GinkgoT(), chunks) }
