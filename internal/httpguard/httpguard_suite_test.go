package httpguard_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

func TestHTTPGuard(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "httpguard")
}

// guarded is a real HTTP server on loopback with a Guard in front of
// handler, as agentsnap serve runs it.
type guarded struct {
	addr  string // host:port, as printed
	url   string
	g     *httpguard.Guard
	srv   *http.Server
	calls atomic.Int64 // requests that reached the handler
	got   atomic.Int64 // body bytes the handler read, last request

	mu   sync.Mutex
	logs []string
}

// start serves handler (echo when nil) behind a Guard with cfg; Addr is filled in.
func start(cfg httpguard.Config, handler http.HandlerFunc) *guarded {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	s := &guarded{addr: ln.Addr().String(), url: "http://" + ln.Addr().String()}
	if handler == nil {
		handler = s.echo
	}
	cfg.Addr = ln.Addr()
	cfg.Logf = func(format string, args ...any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.logs = append(s.logs, fmt.Sprintf(format, args...))
	}
	s.g, err = httpguard.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		handler(w, r)
	}), cfg)
	Expect(err).NotTo(HaveOccurred())
	s.srv = s.g.Server()
	go func() { _ = s.srv.Serve(ln) }()
	DeferCleanup(func() { s.g.Stop(s.srv, 0) })
	return s
}

// echo reads the body as the wire handler does (io.ReadAll), answers a
// failed read with 400 as it does today, else 200 with the byte count.
func (s *guarded) echo(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	s.got.Store(int64(len(b)))
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, err.Error())
		return
	}
	fmt.Fprintf(w, `{"read":%d}`, len(b))
}

func (s *guarded) logged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logs...)
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   string
	close  bool                                 // the server closes the connection after it
	err    struct{ Message, Type, Code string } // the JSON error, if any
}

func read(resp *http.Response) answer {
	GinkgoHelper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	a := answer{status: resp.StatusCode, header: resp.Header, body: string(b), close: resp.Close}
	var e struct {
		Error struct{ Message, Type, Code string }
	}
	if json.Unmarshal(b, &e) == nil {
		a.err = e.Error
	}
	return a
}

// do sends a request built by edit (a JSON POST by default) and reads the answer.
func (s *guarded) do(edit func(*http.Request)) answer {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, s.url+"/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	return read(resp)
}

// raw opens a TCP connection to s and writes head as is.
func (s *guarded) raw(head string) (net.Conn, *bufio.Reader) {
	GinkgoHelper()
	c, err := net.Dial("tcp", s.addr)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	Expect(c.SetDeadline(time.Now().Add(20 * time.Second))).To(Succeed()) // a hang fails, it does not block the suite
	_, err = io.WriteString(c, head)
	Expect(err).NotTo(HaveOccurred())
	return c, bufio.NewReader(c)
}

// readRaw reads one response from a raw connection.
func readRaw(br *bufio.Reader) answer {
	GinkgoHelper()
	resp, err := http.ReadResponse(br, nil)
	Expect(err).NotTo(HaveOccurred())
	return read(resp)
}

// untouchable is a body that must never be read: a read is recorded and fails.
type untouchable struct{ read atomic.Bool }

func (u *untouchable) Read([]byte) (int, error) {
	u.read.Store(true)
	return 0, errors.New("the body was read")
}

// filler is n bytes of 'a' from a reader that allocates nothing; it
// counts what was taken. It is not a known reader type, so a request with
// it is sent chunked.
type filler struct {
	left  int64
	taken atomic.Int64
}

func (f *filler) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > f.left {
		n = f.left
	}
	for i := range p[:n] {
		p[i] = 'a'
	}
	f.left -= n
	f.taken.Add(n)
	return int(n), nil
}
