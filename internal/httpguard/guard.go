// Package httpguard lets a local HTTP endpoint answer only its own agent:
// a Guard in front of a handler refuses, by their headers and before the
// handler runs or a byte of the body is read (but for the first byte of
// a chunked DELETE that is not JSON, to tell whether it has a body),
// requests to another Host (DNS rebinding), cross-site requests from a web
// page (a foreign Origin, a body that is not JSON) and bodies over a
// limit; it bounds how long a body may take to arrive, and the server it
// builds bounds the headers.
// agentsnap serve runs its wire handler behind one.
//
// Every refusal is answered with a JSON body in the shape every model SDK
// shows, {"error":{"message":...,"type":"agentsnap_error","code":...}},
// whose message names what was refused and what to do.
package httpguard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits and timeouts of a Guard and its server.
const (
	// DefaultMaxBody is the default limit of a request body, in bytes. A
	// read of r.Body past Config.MaxBody fails with *http.MaxBytesError,
	// and the Guard answers the request with 413 whatever the handler
	// writes after that.
	DefaultMaxBody = 32 << 20
	// MinMaxBody and MaxMaxBody bound Config.MaxBody (--max-body).
	MinMaxBody = 1 << 10
	MaxMaxBody = 1 << 30
	// DefaultBodyTimeout is how long a request body may take to arrive,
	// from the end of its headers; a read past it fails and the request
	// is answered with 408.
	DefaultBodyTimeout = 30 * time.Second
	// ReadHeaderTimeout is how long the server waits for a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// MaxHeaderBytes bounds a request's headers; net/http answers more with 431.
	MaxHeaderBytes = 64 << 10
	// IdleTimeout is how long the server keeps an idle keep-alive connection.
	IdleTimeout = 2 * time.Minute
	// maxOrigins bounds Config.AllowOrigins.
	maxOrigins = 64
)

// Config is what a Guard admits.
type Config struct {
	// Addr is the address the server listens on (the listener's): a
	// request's Host must name it, or localhost with its port when it is
	// 127.0.0.1 or ::1.
	Addr net.Addr
	// AllowOrigins are the origins of web pages allowed to call, exact
	// (scheme://host[:port], as ParseOrigin returns them): for them the
	// Guard answers CORS preflights and marks its answers readable.
	AllowOrigins []string
	// MaxBody is the largest request body in bytes (default DefaultMaxBody,
	// between MinMaxBody and MaxMaxBody).
	MaxBody int64
	// BodyTimeout is how long a body may take to arrive (default
	// DefaultBodyTimeout).
	BodyTimeout time.Duration
	// Logf, when set, is told of every refused request, once.
	Logf func(format string, args ...any)
}

// Guard is an http.Handler that admits only requests of the local agent
// and hands them to the next handler. It is safe for concurrent use.
type Guard struct {
	next    http.Handler
	cfg     Config
	hosts   []string        // accepted Host values, the printed one first
	own     map[string]bool // the server's own origins (http://HOST)
	allowed map[string]bool
	refused atomic.Int64

	mu       sync.RWMutex // guards stopped against inflight.Add
	stopped  bool
	inflight sync.WaitGroup // requests past the preflight: being checked, or inside next
	// halt ends every request's context at Stop: net/http cancels a
	// request when its connection closes only once its body was read.
	halt   context.Context
	doHalt context.CancelFunc
}

// New returns a Guard in front of next.
func New(next http.Handler, cfg Config) (*Guard, error) {
	if next == nil || cfg.Addr == nil {
		return nil, errors.New("httpguard: a handler and Config.Addr are required")
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxBody < MinMaxBody || cfg.MaxBody > MaxMaxBody {
		return nil, fmt.Errorf("httpguard: a body limit of %d bytes is outside %s..%s", cfg.MaxBody, FormatSize(MinMaxBody), FormatSize(MaxMaxBody))
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if len(cfg.AllowOrigins) > maxOrigins {
		return nil, fmt.Errorf("httpguard: %d allowed origins, more than %d", len(cfg.AllowOrigins), maxOrigins)
	}
	g := &Guard{next: next, cfg: cfg, hosts: Hosts(cfg.Addr), own: map[string]bool{}, allowed: map[string]bool{}}
	g.halt, g.doHalt = context.WithCancel(context.Background())
	for _, h := range g.hosts {
		g.own["http://"+h] = true
	}
	for _, o := range cfg.AllowOrigins {
		n, err := ParseOrigin(o)
		if err != nil {
			return nil, err
		}
		g.allowed[n] = true
	}
	return g, nil
}

// Hosts returns the Host values a request to addr may carry: addr as
// printed, and localhost with its port when addr is 127.0.0.1 or ::1.
// Names other than localhost are refused: a web page using DNS rebinding
// reaches a loopback server under a name of its own.
func Hosts(addr net.Addr) []string {
	s := strings.ToLower(addr.String())
	hosts := []string{s}
	if host, port, err := net.SplitHostPort(s); err == nil {
		if ip := net.ParseIP(host); ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback)) {
			hosts = append(hosts, net.JoinHostPort("localhost", port))
		}
	}
	return hosts
}

// Refused returns how many requests the Guard refused.
func (g *Guard) Refused() int64 { return g.refused.Load() }

// ServeHTTP checks r by its headers, in order — Host, origin, preflight,
// Content-Type, Content-Length — and hands it to the next handler with
// its body bounded. Past the preflight, a request is in flight (Stop waits
// for it) or, once Stop began, refused with 503.
func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The body's time starts here: a look at a chunked DELETE's first
	// byte (emptyChunked) spends it too.
	deadline := time.Now().Add(g.cfg.BodyTimeout)
	if rf := g.checkHost(r); rf != nil {
		g.refuse(w, r, rf)
		return
	}
	origin, rf := g.checkOrigin(r)
	if rf != nil {
		g.refuse(w, r, rf)
		return
	}
	if origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", origin)
	}
	if len(g.allowed) > 0 {
		w.Header().Add("Vary", "Origin")
	}
	if origin != "" && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		g.preflight(w, r)
		return
	}
	// In flight from here: the look at a chunked DELETE's first byte
	// (checkContentType) may wait for the client, and Stop waits for it.
	if !g.enter() {
		g.refuse(w, r, &refusal{status: http.StatusServiceUnavailable, code: "STOPPED", message: "serve is stopping and takes no more requests"})
		return
	}
	defer g.inflight.Done()
	if rf := g.checkContentType(w, r, deadline); rf != nil {
		g.refuse(w, r, rf)
		return
	}
	if r.ContentLength > g.cfg.MaxBody {
		g.refuse(w, r, g.tooLarge(fmt.Sprintf("is %d bytes (its Content-Length)", r.ContentLength), r.ContentLength))
		return
	}
	g.serve(w, r, deadline)
}

// enter counts a request in flight, unless Stop began.
func (g *Guard) enter() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.stopped {
		return false
	}
	g.inflight.Add(1)
	return true
}

// serve runs the next handler with r's body bounded — to arrive by
// deadline — and its context ended by Stop.
func (g *Guard) serve(w http.ResponseWriter, r *http.Request, deadline time.Time) {
	ctx, cancel := context.WithCancel(r.Context())
	defer context.AfterFunc(g.halt, cancel)()
	defer cancel()
	r = r.WithContext(ctx)
	if r.Body == nil || r.Body == http.NoBody {
		g.next.ServeHTTP(w, r)
		return
	}
	b := newBody(g, w, r, deadline)
	r.Body = b
	bw := &writer{ResponseWriter: w, g: g, r: r, body: b}
	g.next.ServeHTTP(bw, r)
	bw.finish()
}

// refusal is why a request was refused.
type refusal struct {
	status  int
	code    string
	message string
	retry   bool // the SDK may retry (x-should-retry)
}

// refuse answers r with rf and tells Logf.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, rf *refusal) {
	g.refused.Add(1)
	// The path as it was sent, escaped: a web page's request must not
	// write an ESC or a line break into the terminal serve runs in.
	g.cfg.Logf("refused %s %s (%d): %s", r.Method, r.URL.EscapedPath(), rf.status, rf.message)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Should-Retry", strconv.FormatBool(rf.retry))
	if !rf.retry {
		h.Set("Connection", "close") // what follows on the connection is not worth reading
	}
	w.WriteHeader(rf.status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": "agentsnap serve: " + rf.message, "type": "agentsnap_error", "code": rf.code}})
}

// checkHost refuses a Host that is not the server's address.
func (g *Guard) checkHost(r *http.Request) *refusal {
	host := strings.ToLower(r.Host)
	for _, h := range g.hosts {
		if host == h || strings.TrimSuffix(h, ":80") == host && strings.HasSuffix(h, ":80") {
			return nil
		}
	}
	return &refusal{status: http.StatusMisdirectedRequest, code: "HOST_NOT_ALLOWED", message: fmt.Sprintf(
		"the request's Host is %q, and serve answers only requests to the address it printed, %s; "+
			"another Host is what a web page using DNS rebinding sends. Point the agent at the URL serve printed, http://%s/v1",
		r.Host, strings.Join(g.hosts, " or "), g.hosts[0])}
}

// checkOrigin refuses a cross-site request: an Origin neither the
// server's own nor allowed, or a browser's cross-site mark without one.
// It returns the origin to mark the answer readable for, if any.
func (g *Guard) checkOrigin(r *http.Request) (string, *refusal) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			return "", &refusal{status: http.StatusForbidden, code: "CROSS_SITE", message: fmt.Sprintf(
				"a browser sent this request from another site (Sec-Fetch-Site: %s); serve answers only its own agent, "+
					"so that a web page cannot spend your key or write your fixture. An agent in a browser sends its Origin; "+
					"allow it with --allow-origin ORIGIN", site)}
		}
		return "", nil
	}
	n, err := ParseOrigin(origin)
	if err == nil && g.own[n] {
		return "", nil
	}
	if err == nil && g.allowed[n] {
		return origin, nil
	}
	hint := "restart serve with --allow-origin " + origin
	if err != nil {
		hint = "serve allows only origins of the form scheme://host[:port], given with --allow-origin"
	}
	return "", &refusal{status: http.StatusForbidden, code: "ORIGIN_NOT_ALLOWED", message: fmt.Sprintf(
		"a cross-site request from origin %q; serve answers only its own agent, so that a web page cannot spend your key "+
			"or write your fixture. If that origin is your agent running in a browser, %s", origin, hint)}
}

// checkContentType refuses a body that is not JSON: a web page can send
// text/plain, a form or no type at all cross-site without a preflight. A
// DELETE without a body (an MCP client ending its session) has no type to
// check, and a page cannot send one cross-site without a preflight; of a
// chunked DELETE whose type is not JSON, the first byte is looked at, by
// deadline, to tell — unless the client waits for 100 Continue, which
// says it has a body (RFC 9110 10.1.1) and is refused without being asked
// for it (a read of the body sends 100 Continue).
func (g *Guard) checkContentType(w http.ResponseWriter, r *http.Request, deadline time.Time) *refusal {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	if r.Method == http.MethodDelete {
		if r.ContentLength == 0 {
			return nil
		}
		if !expectsContinue(r) {
			if empty, rf := g.emptyChunked(w, r, deadline); empty || rf != nil {
				return rf
			}
		}
	}
	got := fmt.Sprintf("Content-Type %q", ct)
	if ct == "" {
		got = "no Content-Type"
	}
	return &refusal{status: http.StatusUnsupportedMediaType, code: "UNSUPPORTED_CONTENT_TYPE", message: fmt.Sprintf(
		"%s %s has %s; serve takes JSON bodies only: send Content-Type: application/json", r.Method, r.URL.EscapedPath(), got)}
}

// emptyChunked reports whether r's body, of a length not given (sent
// chunked), is empty, reading at most its first byte — not handed on: it
// is looked at only for a DELETE that is refused with a body. The read
// waits until deadline, as the body's would: a first byte that never
// comes is refused (408), not waited for.
func (g *Guard) emptyChunked(w http.ResponseWriter, r *http.Request, deadline time.Time) (bool, *refusal) {
	if r.ContentLength > 0 || r.Body == nil || r.Body == http.NoBody {
		return r.ContentLength <= 0, nil
	}
	// A writer without deadlines (a test's recorder) has the size bound only.
	_ = http.NewResponseController(w).SetReadDeadline(deadline)
	var first [1]byte
	n, err := io.ReadAtLeast(r.Body, first[:], 1)
	switch {
	case n == 0 && err == io.EOF:
		r.ContentLength = 0
		return true, nil
	case n == 0 && errors.Is(err, os.ErrDeadlineExceeded):
		return false, g.bodyTimeout(0)
	}
	return false, nil
}

// expectsContinue reports whether r's client waits for 100 Continue
// before it sends the body.
func expectsContinue(r *http.Request) bool {
	for v := range strings.SplitSeq(r.Header.Get("Expect"), ",") {
		if strings.EqualFold(strings.TrimSpace(v), "100-continue") {
			return true
		}
	}
	return false
}

// tooLarge is the refusal of a body over the limit; what says how large,
// n is its Content-Length (-1 when it came without one).
func (g *Guard) tooLarge(what string, n int64) *refusal {
	if n > MaxMaxBody {
		return &refusal{status: http.StatusRequestEntityTooLarge, code: "BODY_TOO_LARGE", message: fmt.Sprintf(
			"the request body %s, more than serve's limit of %s and than the largest --max-body, %s; send a smaller request",
			what, FormatSize(g.cfg.MaxBody), FormatSize(MaxMaxBody))}
	}
	return &refusal{status: http.StatusRequestEntityTooLarge, code: "BODY_TOO_LARGE", message: fmt.Sprintf(
		"the request body %s, more than serve's limit of %s; raise it with --max-body SIZE, such as --max-body %s",
		what, FormatSize(g.cfg.MaxBody), strings.TrimSuffix(FormatSize(suggestMaxBody(g.cfg.MaxBody, n)), " bytes"))}
}

// suggestMaxBody is the --max-body a refusal suggests (written as one
// word, 3000 rather than "3000 bytes", so it pastes): the limit doubled
// until a body of n bytes fits (once when n is unknown), so that following
// the advice is not refused again; at most MaxMaxBody.
func suggestMaxBody(limit, n int64) int64 {
	s := min(2*limit, MaxMaxBody)
	for s < n && s < MaxMaxBody {
		s = min(2*s, MaxMaxBody)
	}
	return s
}
