package wire

import (
	"io"
	"net/http"
	"sync"
)

// Transport returns an http.RoundTripper that serves every request with h
// in the same process: no socket is opened and no name is resolved. The
// response body streams as h writes it, so an SDK reads server-sent events
// as they come. Closing the body, or cancelling the request's context,
// stops h, and the body then reads as the context's error.
func Transport(h http.Handler) http.RoundTripper { return &transport{h: h} }

type transport struct{ h http.Handler }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	rw := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			rw.start(http.StatusOK)
			// An answer cut because the agent's context ended (a turn's
			// timeout, a cancel) reads as that context's error, as it does
			// from a real connection: not as a clean end of stream.
			pw.CloseWithError(req.Context().Err())
			if req.Body != nil {
				req.Body.Close()
			}
		}()
		t.h.ServeHTTP(rw, req)
	}()
	select {
	case <-rw.ready:
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	return &http.Response{
		Status:        http.StatusText(rw.status),
		StatusCode:    rw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rw.sent,
		Body:          pr,
		ContentLength: -1,
		Request:       req,
	}, nil
}

// pipeWriter is the handler's http.ResponseWriter: the status and a copy
// of the headers are handed over at the first write (later changes are
// not sent, as with net/http), the body goes through a pipe.
type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	status int
	sent   http.Header // the headers as of the first write
	once   sync.Once
	ready  chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) { w.start(status) }

func (w *pipeWriter) start(status int) {
	w.once.Do(func() {
		w.status, w.sent = status, w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.start(http.StatusOK)
	return w.pw.Write(b)
}

// Flush implements http.Flusher; writes reach the reader at once anyway.
func (w *pipeWriter) Flush() {}
