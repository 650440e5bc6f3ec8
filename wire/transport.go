package wire

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Transport returns an http.RoundTripper that serves every request with h
// in the same process: no socket is opened and no name is resolved. The
// response body streams as h writes it, so an SDK reads server-sent events
// as they come; each read takes all that is written and not yet read.
// Closing the body, or cancelling the request's context, stops h, and the
// body then reads as the context's error.
//
// h runs on goroutines the transport keeps between requests, as an HTTP
// client keeps its connections: a handler's stack, grown by its first
// request, serves the next without growing again. A goroutine idle for a
// second ends; CloseIdleConnections (http.Client.CloseIdleConnections)
// ends the idle ones at once. A Handler of this package replaying with a
// driver that never waits (fakellm.Driver.NeverWaits) runs on the caller's
// goroutine instead, the answer written whole before RoundTrip returns:
// nothing is handed over and back, and no call of such a replay has a
// first frame worth reading before its last.
func Transport(h http.Handler) http.RoundTripper {
	if wh, ok := h.(*Handler); ok {
		wh.inProcess.Store(true) // its agent runs here: Close's advice says so
	}
	return &transport{h: h, quit: make(chan struct{}), idleTimeout: idleTimeout}
}

// idleTimeout is how long a server goroutine waits for its next request;
// maxIdle bounds how many wait at once (as many as the agent ran calls at
// once, up to it).
const (
	idleTimeout = time.Second
	maxIdle     = 64
)

type transport struct {
	h http.Handler

	mu   sync.Mutex
	idle []*server     // waiting for a request, the last to finish last
	quit chan struct{} // closed by CloseIdleConnections, then replaced
	// Server goroutines started, and running now: what the specs read
	// (TransportServers), counted where the lock is held anyway.
	started, running int
	idleTimeout      time.Duration // how long a server waits: idleTimeout, shorter in the specs
}

// server is a goroutine that serves one exchange after another.
type server struct {
	t     *transport
	job   chan *exchange // holds the next exchange; buffered, so a send never waits
	timer *time.Timer    // the idle timeout, made at the first wait
}

// exchange is one call's objects in one allocation: what the handler
// writes to, the body the agent reads and the response that hands it over.
// Nothing of it is reused: the agent may keep the response.
type exchange struct {
	req  *http.Request
	rw   bodyWriter
	body body
	resp http.Response
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		// Ended before it was sent: no handler sees it, as no server would.
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	x := &exchange{req: req}
	x.body.init(ctx)
	x.rw.body = &x.body
	if a, ok := t.h.(interface{ answersAtOnce() bool }); ok && a.answersAtOnce() {
		// On this goroutine: the answer comes whole, without waiting.
		x.body.whole = true
		x.serve(t.h)
	} else {
		t.serve(x)
		if err := x.body.awaitStart(); err != nil {
			x.body.Close()
			return nil, err
		}
	}
	x.resp = http.Response{
		Status:        http.StatusText(x.rw.status),
		StatusCode:    x.rw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        x.rw.header,
		Body:          &x.body,
		ContentLength: -1,
		Request:       req,
	}
	return &x.resp, nil
}

// serve hands x to an idle server, or to a new one.
func (t *transport) serve(x *exchange) {
	t.mu.Lock()
	if n := len(t.idle); n > 0 {
		s := t.idle[n-1]
		t.idle[n-1] = nil
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		s.job <- x
		return
	}
	t.started++
	t.running++
	t.mu.Unlock()
	s := &server{t: t, job: make(chan *exchange, 1)}
	go s.run(x)
}

// CloseIdleConnections ends the server goroutines that wait for a request;
// those serving one end after it, idle for a second.
func (t *transport) CloseIdleConnections() {
	t.mu.Lock()
	defer t.mu.Unlock()
	close(t.quit)
	t.quit = make(chan struct{})
}

// run serves x, then every exchange handed to s, until s is idle too long.
func (s *server) run(x *exchange) {
	for x != nil {
		x.serve(s.t.h)
		x = s.next()
	}
	s.t.mu.Lock()
	s.t.running--
	s.t.mu.Unlock()
}

// next waits among the idle servers for s's next exchange. It returns nil
// once s waited idleTimeout, the idle servers are closed or enough wait
// already.
func (s *server) next() *exchange {
	t := s.t
	t.mu.Lock()
	if len(t.idle) >= maxIdle {
		t.mu.Unlock()
		return nil
	}
	t.idle = append(t.idle, s)
	quit, timeout := t.quit, t.idleTimeout
	t.mu.Unlock()
	if s.timer == nil {
		s.timer = time.NewTimer(timeout)
	} else {
		s.timer.Reset(timeout)
	}
	select {
	case x := <-s.job:
		s.timer.Stop()
		return x
	case <-s.timer.C:
	case <-quit:
	}
	t.mu.Lock()
	i := slices.Index(t.idle, s)
	if i >= 0 {
		t.idle = slices.Delete(t.idle, i, i+1)
	}
	t.mu.Unlock()
	if i < 0 {
		// A request took s as it timed out: its exchange is on the way.
		s.timer.Stop()
		return <-s.job
	}
	s.timer.Stop()
	return nil
}

// serve runs h on the request, on a server's goroutine: the body streams
// as h writes it.
func (x *exchange) serve(h http.Handler) {
	req := x.req
	ctx := req.Context()
	defer func() {
		x.rw.start(http.StatusOK)
		// An answer cut because the agent's context ended (a turn's
		// timeout, a cancel) reads as that context's error, as it does
		// from a real connection: not as a clean end of stream.
		x.body.end(ctx.Err())
		if req.Body != nil {
			req.Body.Close()
		}
	}()
	h.ServeHTTP(&x.rw, req)
}

// bodyWriter is the handler's http.ResponseWriter: the status and the
// headers are handed over at the first write, the body goes to the agent's
// reads. The header map itself is handed over, not a copy: from then on
// Header returns a map of its own, whose changes are not sent, as with
// net/http.
type bodyWriter struct {
	header http.Header // until the first write; then the agent's
	late   http.Header // after it
	body   *body
	status int
	handed bool // the status and header are handed over (the handler's goroutine only)
}

func (w *bodyWriter) Header() http.Header {
	switch {
	case w.handed:
		if w.late == nil {
			w.late = http.Header{}
		}
		return w.late
	case w.header == nil:
		w.header = http.Header{}
	}
	return w.header
}

func (w *bodyWriter) WriteHeader(status int) { w.start(status) }

func (w *bodyWriter) start(status int) {
	if w.handed {
		return
	}
	w.handed = true
	if w.header == nil {
		w.header = http.Header{}
	}
	w.status = status
	w.body.started() // publishes status and header to RoundTrip
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

// firstBody is the room a body's buffer starts with: a streamed answer's
// frames at once, most often.
const firstBody = 4 << 10

// buffers keeps the buffers of bodies read to their end or closed, for the
// next: an answer's frames fill a buffer while the agent waits for the
// first, so each would otherwise grow one from nothing. A buffer never
// leaves its body (a read copies out of it), and a body drops it when it
// hands it back.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, firstBody); return &b }}

// release hands b's buffer back to buffers; one grown past twice maxAhead
// (a write that waits for room keeps most buffers well under it) is left to
// the collector. The caller holds b.mu.
func (b *body) release() {
	if b.pooled != nil && cap(b.buf) <= 2*maxAhead {
		*b.pooled = b.buf[:0]
		buffers.Put(b.pooled)
	}
	b.buf, b.off, b.pooled = nil, 0, nil
}

// body is a response body the handler writes and the agent reads. What is
// written waits in buf until read; a read takes all of it that fits.
type body struct {
	ctx context.Context

	mu       sync.Mutex
	buf      []byte // written; read up to off
	off      int
	pooled   *[]byte // where buf came from, in buffers
	begun    bool    // the handler has handed over its status and headers
	done     error   // once the handler is done: what reads return after buf (io.EOF, or the context's error)
	closed   bool    // the agent closed the body: writes fail
	whole    bool    // written whole before it is read: writes never wait for room
	readable chan struct{}
	writable chan struct{} // made when the handler first waits for room (under mu): it rarely does
}

func (b *body) init(ctx context.Context) {
	b.ctx, b.readable = ctx, make(chan struct{}, 1)
}

// started records that the status and headers are handed over, and wakes
// RoundTrip: it waits on readable, as a reader does, and checks again.
func (b *body) started() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.begun = true
	signal(b.readable)
}

// awaitStart waits until the handler hands over its status and headers, or
// the request's context ends (its error). A wake-up it takes from a write
// loses no reader's: a reader checks what is written before it waits.
func (b *body) awaitStart() error {
	for {
		b.mu.Lock()
		begun := b.begun
		b.mu.Unlock()
		if begun {
			return nil
		}
		select {
		case <-b.readable:
		case <-b.ctx.Done():
			return b.ctx.Err()
		}
	}
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
	for !b.closed && !b.whole && len(b.buf)-b.off >= maxAhead {
		if b.writable == nil {
			b.writable = make(chan struct{}, 1)
		}
		writable := b.writable
		b.mu.Unlock()
		select {
		case <-writable:
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
		b.pooled = buffers.Get().(*[]byte)
		b.buf = (*b.pooled)[:0]
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
		b.release()        // the handler is done, and all it wrote is read
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
	b.release()
	signal(b.readable)
	signal(b.writable)
	return nil
}
