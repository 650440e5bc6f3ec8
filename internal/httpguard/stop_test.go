package httpguard_test

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

var _ = Describe("Stop", func() {
	It("returns within 200 ms whatever the clients do, every handler returned", func() {
		var running atomic.Int64
		streaming := make(chan struct{}, 2)
		s := start(httpguard.Config{}, func(w http.ResponseWriter, r *http.Request) {
			running.Add(1)
			defer running.Add(-1)
			_, _ = io.ReadAll(r.Body)
			if r.URL.Path == "/quick" {
				return
			}
			streaming <- struct{}{}
			chunk := bytes.Repeat([]byte("data: x\n\n"), 1<<13)
			for r.Context().Err() == nil { // a stream that never ends
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		})
		head := func(path string) string {
			return "POST " + path + " HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
		}
		// An idle keep-alive connection: one answer read, then nothing.
		_, idle := s.raw(head("/quick"))
		Expect(readRaw(idle).status).To(Equal(http.StatusOK))
		// A connection that has sent nothing, one halfway through its headers.
		s.raw("")
		s.raw("POST /v1/chat/completions HTTP/1.1\r\nHost: ")
		// A stream whose client stopped reading, and one being read.
		s.raw(head("/stream"))
		_, reader := s.raw(head("/stream"))
		go func() { _, _ = io.Copy(io.Discard, reader) }()
		Eventually(streaming).Should(Receive())
		Eventually(streaming).Should(Receive())

		stopped := make(chan struct{})
		began := time.Now()
		go func() {
			s.g.Stop(s.srv, 50*time.Millisecond)
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(200 * time.Millisecond):
			Fail("Stop did not return within 200ms")
		}
		GinkgoWriter.Printf("Stop took %s\n", time.Since(began))
		Expect(running.Load()).To(BeZero(), "handlers still running after Stop")
	})

	It("returns only when every handler has left, so what they write is done before serve goes on", func() {
		cancelled, release := make(chan struct{}), make(chan struct{})
		s := start(httpguard.Config{}, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done(): // a call that hangs until serve stops, its body unread
				close(cancelled)
				<-release // then ends its turn, slowly
			case <-release:
			}
		})
		var once sync.Once
		free := func() { once.Do(func() { close(release) }) }
		DeferCleanup(free) // before the server's cleanup, should a spec fail
		_, _ = s.raw("POST /v1/chat/completions HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		Eventually(s.calls.Load).Should(BeEquivalentTo(1))
		stopped := make(chan struct{})
		go func() {
			s.g.Stop(s.srv, 0)
			close(stopped)
		}()
		Eventually(cancelled).Should(BeClosed())
		Consistently(stopped, 100*time.Millisecond).ShouldNot(BeClosed())
		free()
		Eventually(stopped).Should(BeClosed())
	})

	It("waits for a request whose body's first byte the Guard is looking at (a chunked DELETE)", func() {
		s := start(httpguard.Config{}, nil)
		body, send := io.Pipe()
		DeferCleanup(send.Close) // should a spec fail, the look ends
		req, err := http.NewRequest(http.MethodDelete, s.url+"/mcp/clock", body)
		Expect(err).NotTo(HaveOccurred())
		req.Host, req.ContentLength = s.addr, -1 // sent chunked, no Content-Type: whether it has a body decides
		looking := make(chan struct{})
		rec := &deadlines{recorder: recorder{header: http.Header{}}, set: sync.OnceFunc(func() { close(looking) })}
		served := make(chan struct{})
		go func() {
			s.g.ServeHTTP(rec, req)
			close(served)
		}()
		Eventually(looking).Should(BeClosed(), "the look sets the body's deadline, then reads")

		stopped := make(chan struct{})
		go func() {
			s.g.Stop(s.srv, 0)
			close(stopped)
		}()
		Consistently(stopped, 100*time.Millisecond).ShouldNot(BeClosed(), "Stop returned while the Guard waited for the body's first byte")
		Expect(send.Close()).To(Succeed()) // the body ends with nothing in it, as a closed connection ends it
		Eventually(stopped).Should(BeClosed())
		Expect(served).To(BeClosed(), "the request left the Guard before Stop returned")
		Expect(rec.status).To(Equal(http.StatusOK), "admitted before Stop, it is served: an empty DELETE")
	})

	It("refuses requests once stopped", func() {
		s := start(httpguard.Config{}, nil)
		s.g.Stop(s.srv, 0)
		rec := &recorder{header: http.Header{}}
		req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/chat/completions", nil)
		req.Host = s.addr
		req.Header.Set("Content-Type", "application/json")
		s.g.ServeHTTP(rec, req)
		Expect(rec.status).To(Equal(http.StatusServiceUnavailable))
		Expect(s.calls.Load()).To(BeZero())
	})
})

// recorder is a minimal http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// deadlines is a recorder that can set a read deadline, as the server's
// writer can: set is told of every deadline set.
type deadlines struct {
	recorder
	set func()
}

func (d *deadlines) SetReadDeadline(time.Time) error {
	d.set()
	return nil
}
