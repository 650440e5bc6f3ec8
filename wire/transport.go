package wire

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// Transport returns an http.RoundTripper that serves every request with h
// in the same process: no socket is opened and no name is resolved. The
// response body streams as h writes it, so an SDK reads server-sent events
// as they come; each read takes all that is written and not yet read.
// Closing the body, or cancelling the request's context, stops h, and the
// body then reads as the context's error.
func Transport(h http.Handler) http.RoundTripper { return &transport{h: h} }

type transport struct{ h http.Handler }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	b := newBody(ctx)
	rw := &bodyWriter{header: http.Header{}, body: b, ready: make(chan struct{})}
	go func() {
		defer func() {
			rw.start(http.StatusOK)
			// An answer cut because the agent's context ended (a turn's
			// timeout, a cancel) reads as that context's error, as it does
			// from a real connection: not as a clean end of stream.
			b.end(ctx.Err())
			if req.Body != nil {
				req.Body.Close()
			}
		}()
		t.h.ServeHTTP(rw, req)
	}()
	select {
	case <-rw.ready:
	case <-ctx.Done():
		b.Close()
		return nil, ctx.Err()
	}
	return &http.Response{
		Status:        http.StatusText(rw.status),
		StatusCode:    rw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rw.sent,
		Body:          b,
		ContentLength: -1,
		Request:       req,
	}, nil
}

// bodyWriter is the handler's http.ResponseWriter: the status and a copy
// of the headers are handed over at the first write (later changes are
// not sent, as with net/http), the body goes to the agent's reads.
type bodyWriter struct {
	header http.Header
	body   *body
	status int
	sent   http.Header // the headers as of the first write
	once   sync.Once
	ready  chan struct{}
}

func (w *bodyWriter) Header() http.Header { return w.header }

func (w *bodyWriter) WriteHeader(status int) { w.start(status) }

func (w *bodyWriter) start(status int) {
	w.once.Do(func() {
		w.status, w.sent = status, w.header.Clone()
		close(w.ready)
	})
}

func (w *bodyWriter) Write(p []byte) (int, error) {
	w.start(http.StatusOK)
	return w.body.write(p)
}

// Flush implements http.Flusher; what is written is ready to read at once
// anyway.
func (w *bodyWriter) Flush() {}

// maxAhead is how far the handler may write ahead of the agent's reads
// before its writes wait: a stream's frames are a few hundred bytes, so
// an answer is handed over in one read or a few.
const maxAhead = 64 << 10

// firstBody is the room a body's buffer starts with.
const firstBody = 4 << 10

// body is a response body the handler writes and the agent reads. What is
// written waits in buf until read; a read takes all of it that fits.
type body struct {
	ctx context.Context

	mu       sync.Mutex
	buf      []byte // written; read up to off
	off      int
	done     error // once the handler is done: what reads return after buf (io.EOF, or the context's error)
	closed   bool  // the agent closed the body: writes fail
	readable chan struct{}
	writable chan struct{}
}

func newBody(ctx context.Context) *body {
	return &body{ctx: ctx, readable: make(chan struct{}, 1), writable: make(chan struct{}, 1)}
}

// signal wakes a waiter on c, if any; the waiter checks again.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (b *body) write(p []byte) (int, error) {
	b.mu.Lock()
	for !b.closed && len(b.buf)-b.off >= maxAhead {
		b.mu.Unlock()
		select {
		case <-b.writable:
		case <-b.ctx.Done():
			return 0, b.ctx.Err()
		}
		b.mu.Lock()
	}
	defer b.mu.Unlock()
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	if b.off == len(b.buf) {
		b.buf, b.off = b.buf[:0], 0 // all read: start over
	}
	if b.buf == nil {
		// Room for a streamed answer's frames at once: growing from nothing
		// would cost an allocation per doubling.
		b.buf = make([]byte, 0, max(len(p), firstBody))
	}
	b.buf = append(b.buf, p...)
	signal(b.readable)
	return len(p), nil
}

// end records that the handler is done: err (nil: io.EOF) follows what is
// left to read.
func (b *body) end(err error) {
	if err == nil {
		err = io.EOF
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = err
	signal(b.readable)
}

// Read implements io.Reader: it waits until something is written, or the
// handler is done, and takes all that is written and not yet read, as
// much as fits in p.
func (b *body) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && b.off == len(b.buf) && b.done == nil {
		b.mu.Unlock()
		<-b.readable
		b.mu.Lock()
	}
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	if b.off == len(b.buf) {
		signal(b.readable) // another reader sees the end too
		return 0, b.done
	}
	n := copy(p, b.buf[b.off:])
	b.off += n
	if b.off < len(b.buf) {
		signal(b.readable) // more for another reader
	}
	signal(b.writable)
	return n, nil
}

// Close implements io.Closer: the handler's writes fail from here on,
// which stops it.
func (b *body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.buf, b.off = nil, 0
	signal(b.readable)
	signal(b.writable)
	return nil
}
