package openai_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// testKey is a made-up key; specs assert it never leaks.
const testKey = "sk-test-0123456789abcdefSECRET"

// provider is an httptest server standing in for a Chat Completions
// endpoint. Its handler gets the 1-based number of the request.
type provider struct {
	URL string

	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	path   string
	header http.Header
	body   []byte
}

func newProvider(handle func(w http.ResponseWriter, r *http.Request, n int)) *provider {
	p := &provider{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.requests = append(p.requests, recorded{path: r.URL.Path, header: r.Header.Clone(), body: body})
		n := len(p.requests)
		p.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body)) // the handler may read it again
		handle(w, r, n)
	}))
	DeferCleanup(srv.Close)
	p.URL = srv.URL + "/v1"
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

func (p *provider) Requests() []recorded {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]recorded(nil), p.requests...)
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

func userRequest(text string) *llm.Request {
	return &llm.Request{
		Session:  llm.SessionRef{ID: "root"},
		Turn:     1,
		Step:     1,
		Attempt:  1,
		Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}}},
	}
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

func drain(seq iter.Seq[llm.Chunk]) []session.Chunk {
	var out []session.Chunk
	for c := range seq {
		out = append(out, c)
	}
	return out
}

// jsonLines encodes each chunk, for readable comparisons.
func jsonLines(chunks []session.Chunk) []string {
	out := make([]string, len(chunks))
	for i := range chunks {
		out[i] = string(chunks[i].AppendJSON(nil))
	}
	return out
}

// last returns the finish chunk's reason.
func last(chunks []session.Chunk) *session.FinishReason {
	GinkgoHelper()
	Expect(chunks).NotTo(BeEmpty())
	c := chunks[len(chunks)-1]
	Expect(c.Type).To(Equal(session.ChunkFinish))
	return c.Reason
}

// jsonLogger logs every level as JSON into buf.
func jsonLogger(buf io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
