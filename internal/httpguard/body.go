package httpguard

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// body is a request body bounded in size (http.MaxBytesReader) and in
// time (a read deadline on the connection; net/http takes it off when the
// body hits its end, so an answer streams on). It remembers why a read
// failed.
type body struct {
	g  *Guard
	rc io.ReadCloser

	mu     sync.Mutex
	read   int64
	failed *refusal
}

func newBody(g *Guard, w http.ResponseWriter, r *http.Request, deadline time.Time) *body {
	// MaxBytesReader gets the server's own writer: through it, a body over
	// the limit also closes the connection after the answer.
	b := &body{g: g, rc: http.MaxBytesReader(w, r.Body, g.cfg.MaxBody)}
	// A writer without deadlines (a test's recorder) has the size bound only.
	_ = http.NewResponseController(w).SetReadDeadline(deadline)
	return b
}

// Read reads the body. Past the limit it fails with *http.MaxBytesError,
// past the deadline with an error matching os.ErrDeadlineExceeded.
func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.read += int64(n)
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil, errors.Is(err, io.EOF):
	case errors.As(err, &tooLarge):
		if b.failed == nil {
			b.failed = b.g.tooLarge("is larger (it was sent without a Content-Length)", -1)
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		if b.failed == nil {
			b.failed = b.g.bodyTimeout(b.read)
		}
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }

func (b *body) failure() *refusal {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failed
}

// writer is the next handler's http.ResponseWriter. When a read of the
// body failed on its bound, the Guard's own answer (413 or 408) replaces
// whatever the handler writes: the agent learns the limit and the flag
// whatever the handler makes of the read error.
type writer struct {
	http.ResponseWriter
	g        *Guard
	r        *http.Request
	body     *body
	started  bool
	replaced bool
}

func (w *writer) WriteHeader(status int) {
	if w.started {
		if !w.replaced {
			w.ResponseWriter.WriteHeader(status) // net/http logs the superfluous call
		}
		return
	}
	w.started = true
	if rf := w.body.failure(); rf != nil {
		w.replaced = true
		w.g.refuse(w.ResponseWriter, w.r, rf)
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *writer) Write(p []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, for answers that stream.
func (w *writer) Flush() {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.replaced {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the server's writer.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish answers for a handler that returned after a failed read without
// writing anything.
func (w *writer) finish() {
	if !w.started && w.body.failure() != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// bodyTimeout is the refusal of a body that did not arrive in time, of
// which n bytes came.
func (g *Guard) bodyTimeout(n int64) *refusal {
	return &refusal{status: http.StatusRequestTimeout, code: "BODY_TIMEOUT", retry: true, message: fmt.Sprintf(
		"the request body did not arrive within %s (%d bytes came); send the whole body at once", g.cfg.BodyTimeout, n)}
}
