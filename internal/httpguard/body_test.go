package httpguard_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

var _ = Describe("the body bound", func() {
	It("refuses a 500 MB Content-Length at once, without the body being sent", func() {
		s := start(httpguard.Config{}, nil)
		body := &untouchable{}
		req, err := http.NewRequest(http.MethodPost, s.url+"/v1/chat/completions", body)
		Expect(err).NotTo(HaveOccurred())
		req.ContentLength = 500_000_000
		req.Header.Set("Content-Type", "application/json")
		// The client sends the body only after the server's "100 Continue",
		// which net/http sends at the handler's first read of it.
		req.Header.Set("Expect", "100-continue")
		client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Hour}}
		resp, err := client.Do(req)
		Expect(err).NotTo(HaveOccurred())
		a := read(resp)
		Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(a.err.Code).To(Equal("BODY_TOO_LARGE"))
		Expect(a.err.Message).To(Equal("agentsnap serve: the request body is 500000000 bytes (its Content-Length), more than serve's limit of 32MiB; raise it with --max-body SIZE, such as --max-body 512MiB"))
		Expect(body.read.Load()).To(BeFalse(), "the client was asked for the body")
		Expect(s.calls.Load()).To(BeZero())
	})

	DescribeTable("suggests a --max-body that takes the body its Content-Length announces, so the advice is not refused again",
		func(limit, length int64, advice string) {
			s := start(httpguard.Config{MaxBody: limit}, nil)
			_, br := s.raw(fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", s.addr, length))
			a := readRaw(br)
			Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge))
			Expect(a.err.Message).To(HaveSuffix(advice))
			Expect(s.calls.Load()).To(BeZero())
		},
		Entry("a little over the limit: twice it", int64(4<<10), int64(4<<10+1), "such as --max-body 8KiB"),
		Entry("just over twice the limit: four times it", int64(4<<10), int64(8<<10+60), "such as --max-body 16KiB"),
		Entry("past the largest limit on the way: the largest", int64(32<<20), int64(1<<30), "such as --max-body 1GiB"),
		Entry("a limit in no unit: bytes, in one word", int64(1500), int64(1501), "such as --max-body 3000"),
		Entry("past the largest limit: no size takes it", int64(32<<20), int64(1<<30+1), "more than serve's limit of 32MiB and than the largest --max-body, 1GiB; send a smaller request"),
	)

	It("answers a 500 MB Content-Length from the headers alone, on a connection that sent nothing more", func() {
		s := start(httpguard.Config{}, nil)
		_, br := s.raw("POST /v1/chat/completions HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nContent-Length: 500000000\r\n\r\n")
		a := readRaw(br)
		Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(a.close).To(BeTrue())
		Expect(s.calls.Load()).To(BeZero())
	})

	It("refuses a chunked body as it crosses the limit: the handler reads the limit at most, memory stays bounded", func() {
		const limit = 1 << 20
		s := start(httpguard.Config{MaxBody: limit}, nil)
		body := &filler{left: 200 << 20}
		req, err := http.NewRequest(http.MethodPost, s.url+"/v1/chat/completions", body)
		Expect(err).NotTo(HaveOccurred())
		Expect(req.ContentLength).To(BeZero()) // unknown: sent chunked
		req.Header.Set("Content-Type", "application/json")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		a := read(resp)
		runtime.ReadMemStats(&after)
		Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge), a.body)
		Expect(a.err.Message).To(Equal("agentsnap serve: the request body is larger (it was sent without a Content-Length), more than serve's limit of 1MiB; raise it with --max-body SIZE, such as --max-body 2MiB"))
		Expect(s.calls.Load()).To(BeEquivalentTo(1))
		Expect(s.got.Load()).To(BeNumerically("<=", limit))
		Expect(after.TotalAlloc-before.TotalAlloc).To(BeNumerically("<", 16<<20), "allocated while a 200 MiB body was refused")
		Expect(body.taken.Load()).To(BeNumerically("<", 100<<20), "the client sent on after the refusal")
	})

	It("takes a body of exactly the limit, chunked or not, intact", func() {
		const limit = 64 << 10
		s := start(httpguard.Config{MaxBody: limit}, nil)
		a := s.do(func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(strings.Repeat("a", limit))), limit
		})
		Expect(a.status).To(Equal(http.StatusOK), a.body)
		Expect(a.body).To(Equal(fmt.Sprintf(`{"read":%d}`, limit)))
		a = s.do(func(r *http.Request) { r.Body, r.ContentLength = io.NopCloser(&filler{left: limit}), -1 })
		Expect(a.body).To(Equal(fmt.Sprintf(`{"read":%d}`, limit)))
		a = s.do(func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(strings.Repeat("a", limit+1))), limit+1
		})
		Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(a.err.Message).To(HavePrefix(fmt.Sprintf("agentsnap serve: the request body is %d bytes (its Content-Length)", limit+1)))
		Expect(s.calls.Load()).To(BeEquivalentTo(2), "the handler saw the body over the limit")
		a = s.do(func(r *http.Request) { r.Body, r.ContentLength = io.NopCloser(&filler{left: limit + 1}), -1 })
		Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge))
	})

	It("answers 413 for a handler that returns without a word after the limit", func() {
		s := start(httpguard.Config{MaxBody: 1 << 10}, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
		})
		a := s.do(func(r *http.Request) { r.Body, r.ContentLength = io.NopCloser(&filler{left: 4 << 10}), -1 })
		Expect(a.status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(a.err.Code).To(Equal("BODY_TOO_LARGE"))
	})

	It("answers 408 to a body that comes too slowly", func() {
		s := start(httpguard.Config{BodyTimeout: 200 * time.Millisecond}, nil)
		// Ten of the hundred bytes announced, then nothing.
		_, br := s.raw("POST /v1/chat/completions HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")
		a := readRaw(br)
		Expect(a.status).To(Equal(http.StatusRequestTimeout), a.body)
		Expect(a.err.Code).To(Equal("BODY_TIMEOUT"))
		Expect(a.err.Message).To(Equal("agentsnap serve: the request body did not arrive within 200ms (9 bytes came); send the whole body at once"))
		Expect(s.logged()).To(ConsistOf(HavePrefix("refused POST /v1/chat/completions (408)")))
	})

	It("never cuts an answer that streams on past the body's deadline, nor cancels its request", func() {
		const timeout = 100 * time.Millisecond
		cancelled := make(chan error, 1)
		s := start(httpguard.Config{BodyTimeout: timeout}, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			fmt.Fprint(w, "data: 1\n\n")
			w.(http.Flusher).Flush()
			select { // the stream goes on well past the body's deadline
			case <-time.After(4 * timeout):
			case <-r.Context().Done():
			}
			cancelled <- r.Context().Err()
			fmt.Fprint(w, "data: 2\n\n")
		})
		a := s.do(nil)
		Expect(a.body).To(Equal("data: 1\n\ndata: 2\n\n"))
		Expect(<-cancelled).NotTo(HaveOccurred())
	})

	It("bounds the headers (431 from net/http)", func() {
		s := start(httpguard.Config{}, nil)
		a := s.do(func(r *http.Request) { r.Header.Set("X-Big", strings.Repeat("a", httpguard.MaxHeaderBytes+8<<10)) })
		Expect(a.status).To(Equal(http.StatusRequestHeaderFieldsTooLarge))
		Expect(s.calls.Load()).To(BeZero())
	})

	DescribeTable("reads --max-body sizes, bounded",
		func(in string, want int64, msg string) {
			n, err := httpguard.ParseSize(in)
			if msg != "" {
				Expect(err).To(MatchError(ContainSubstring(msg)))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(Equal(want))
		},
		Entry("MiB", "32MiB", int64(32<<20), ""),
		Entry("M", "64M", int64(64<<20), ""),
		Entry("KiB", "512KiB", int64(512<<10), ""),
		Entry("bytes", "1048576", int64(1<<20), ""),
		Entry("bytes as FormatSize writes them", "1500 bytes", int64(1500), ""),
		Entry("a unit after a space", "2 MiB", int64(2<<20), ""),
		Entry("the largest", "1GiB", int64(1<<30), ""),
		Entry("the smallest", "1KiB", int64(1<<10), ""),
		Entry("one over", "1073741825", int64(0), "more than the largest body serve takes, 1GiB"),
		Entry("one under", "1023", int64(0), "less than the smallest limit, 1KiB"),
		Entry("overflow", "99999999999999999G", int64(0), "more than the largest"),
		Entry("negative", "-1MiB", int64(0), "is not a number of bytes"),
		Entry("a fraction", "1.5MiB", int64(0), "is not a number of bytes"),
		Entry("an unknown unit", "3TB", int64(0), "is not a number of bytes"),
		Entry("empty", "", int64(0), "is not a number of bytes"),
	)

	It("refuses a Config whose limit is out of bounds", func() {
		_, err := httpguard.New(http.NotFoundHandler(), httpguard.Config{Addr: fakeAddr{}, MaxBody: httpguard.MaxMaxBody + 1})
		Expect(err).To(MatchError("httpguard: a body limit of 1073741825 bytes is outside 1KiB..1GiB"))
	})
})

type fakeAddr struct{}

func (fakeAddr) Network() string { return "tcp" }
func (fakeAddr) String() string  { return "127.0.0.1:1" }
