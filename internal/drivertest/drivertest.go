// Package drivertest holds what the specs of every API's live driver
// (llm/openai, llm/responses, llm/anthropic, llm/gemini) share: a stand-in
// server that keeps each request it is sent, and readers of a call's
// chunks. It takes the spec's TB (GinkgoT()) and links no test framework.
package drivertest

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// TB is what the helpers need of a spec: GinkgoT() or a *testing.T.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// Server is an httptest server standing in for a model API, closed when
// the spec ends. URL is its origin.
type Server struct {
	URL string

	mu       sync.Mutex
	requests []Request
}

// Request is one request a Server was sent.
type Request struct {
	Path   string
	URI    string // path and query
	Header http.Header
	Body   []byte
}

// NewServer starts a Server whose handler gets the 1-based number of
// the request; the request's body can be read again. A handler that
// asserts must recover the spec's failures itself (defer GinkgoRecover()).
func NewServer(t TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *Server {
	s := &Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, Request{Path: r.URL.Path, URI: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
		n := len(s.requests)
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		handle(w, r, n)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the requests sent so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// UserRequest is the root's first call, asking text.
func UserRequest(text string) *llm.Request {
	return &llm.Request{
		Session:  llm.SessionRef{ID: "root"},
		Turn:     1,
		Step:     1,
		Attempt:  1,
		Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}}},
	}
}

// Drain returns every chunk of a call.
func Drain(seq iter.Seq[llm.Chunk]) []session.Chunk {
	var out []session.Chunk
	for c := range seq {
		out = append(out, c)
	}
	return out
}

// JSONLines encodes each chunk as the log does, for readable comparisons.
func JSONLines(chunks []session.Chunk) []string {
	out := make([]string, len(chunks))
	for i := range chunks {
		out[i] = string(chunks[i].AppendJSON(nil))
	}
	return out
}

// Last returns the reason of the finish chunk that ends chunks.
func Last(t TB, chunks []session.Chunk) *session.FinishReason {
	t.Helper()
	if len(chunks) == 0 {
		t.Fatalf("the call yielded no chunk; want a finish chunk last")
		return nil
	}
	c := chunks[len(chunks)-1]
	if c.Type != session.ChunkFinish {
		t.Fatalf("the last of %d chunks is %s, not %s: %s", len(chunks), c.Type, session.ChunkFinish, c.AppendJSON(nil))
		return nil
	}
	return c.Reason
}

// Leaked returns an error naming the first chunk whose failure message
// holds key, a credential the decoder that wrote chunks was given to
// scrub, or nil. Only failures are checked: they are the decoder's own
// words about what the server sent, while a model's text may hold
// anything, the key too, and is recorded as sent.
func Leaked(chunks []session.Chunk, key string) error {
	for i, c := range chunks {
		if r := c.Reason; r != nil && r.Failure != nil && strings.Contains(r.Failure.Message, key) {
			return fmt.Errorf("chunk %d: the failure message holds the key %q the decoder scrubs: %s", i, key, r.Failure.Message)
		}
	}
	return nil
}
