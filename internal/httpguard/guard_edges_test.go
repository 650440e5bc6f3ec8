package httpguard_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

var _ = Describe("the Guard, at its edges", func() {
	It("never shows a refused request's query, where a key travels, in its log or its answer", func() {
		const key = "AIzaSyQueryKey0123456789"
		s := start(httpguard.Config{}, nil)
		for _, edit := range []func(*http.Request){
			func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") },
			func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
			func(r *http.Request) { r.Host = "evil.example:80" },
		} {
			a := s.do(func(r *http.Request) {
				r.URL.RawQuery = "key=" + key
				edit(r)
			})
			Expect(a.status).To(BeNumerically(">=", 400))
			Expect(a.body).NotTo(ContainSubstring(key))
		}
		Expect(s.logged()).To(HaveLen(3))
		for _, line := range s.logged() {
			Expect(line).To(ContainSubstring("/v1/chat/completions"))
			Expect(line).NotTo(ContainSubstring(key))
		}
	})

	It("writes a refused request's path into its log and its answer escaped: a web page cannot put an ESC or a line break on serve's terminal", func() {
		s := start(httpguard.Config{}, nil)
		a := s.do(func(r *http.Request) {
			r.URL.Path = "/v1/\x1b[2J\x1b[31mforged\nrecorded all\r"
			r.Header.Set("Origin", "http://evil.example")
		})
		Expect(a.status).To(Equal(http.StatusForbidden))
		b := s.do(func(r *http.Request) {
			r.URL.Path = "/v1/\x1b]0;title\x07"
			r.Header.Set("Content-Type", "text/plain")
		})
		Expect(b.status).To(Equal(http.StatusUnsupportedMediaType))
		Expect(b.err.Message).To(HavePrefix("agentsnap serve: POST /v1/%1B%5D0;title%07 has "))
		Expect(s.logged()).To(HaveExactElements(
			HavePrefix("refused POST /v1/%1B%5B2J%1B%5B31mforged%0Arecorded%20all%0D (403): "),
			HavePrefix("refused POST /v1/%1B%5D0;title%07 (415): POST /v1/%1B%5D0;title%07 has "),
		))
	})

	It("tells the SDK not to retry a refusal, and closes its connection", func() {
		s := start(httpguard.Config{}, nil)
		a := s.do(func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") })
		Expect(a.status).To(Equal(http.StatusUnsupportedMediaType))
		Expect(a.header.Get("X-Should-Retry")).To(Equal("false"))
		Expect(a.close).To(BeTrue(), "Connection: close")
	})

	It("leaves a requested header that is no HTTP token out of a preflight, even with an allowed prefix", func() {
		const origin = "http://localhost:5173"
		s := start(httpguard.Config{AllowOrigins: []string{origin}}, nil)
		req, err := http.NewRequest(http.MethodOptions, s.url+"/v1/chat/completions", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, x-stainless-ok, x-stainless-a(b), agentsnap-x y")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		a := read(resp)
		Expect(a.status).To(Equal(http.StatusNoContent))
		allowed := strings.Split(a.header.Get("Access-Control-Allow-Headers"), ", ")
		Expect(allowed).To(ContainElement("x-stainless-ok"))
		Expect(allowed).NotTo(ContainElement("x-stainless-a(b)"))
		Expect(allowed).NotTo(ContainElement("agentsnap-x y"))
		Expect(s.logged()).To(ConsistOf("a preflight from " + origin + " asks for headers serve does not allow: x-stainless-a(b), agentsnap-x y"))
	})

	It("answers a preflight only for an allowed origin: without one, OPTIONS goes to the handler and grants nothing", func() {
		s := start(httpguard.Config{AllowOrigins: []string{"http://localhost:5173"}}, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusMethodNotAllowed)
		})
		for _, from := range []string{"", s.url} {
			req, err := http.NewRequest(http.MethodOptions, s.url+"/v1/chat/completions", nil)
			Expect(err).NotTo(HaveOccurred())
			if from != "" {
				req.Header.Set("Origin", from)
			}
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			a := read(resp)
			Expect(a.status).To(Equal(http.StatusMethodNotAllowed), from)
			Expect(a.header.Get("Access-Control-Allow-Methods")).To(BeEmpty(), from)
			Expect(a.header.Get("Access-Control-Allow-Origin")).To(BeEmpty(), from)
		}
		Expect(s.calls.Load()).To(BeEquivalentTo(2))
	})

	It("takes exactly 64 allowed origins", func() {
		many := make([]string, 64)
		for i := range many {
			many[i] = fmt.Sprintf("http://localhost:%d", 5000+i)
		}
		_, err := httpguard.New(http.NotFoundHandler(), httpguard.Config{Addr: &net.TCPAddr{}, AllowOrigins: many})
		Expect(err).NotTo(HaveOccurred())
	})

	It("builds a server that bounds how long the headers may take, and how long a connection idles", func() {
		g, err := httpguard.New(http.NotFoundHandler(), httpguard.Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}})
		Expect(err).NotTo(HaveOccurred())
		srv := g.Server()
		Expect(srv.ReadHeaderTimeout).To(Equal(httpguard.ReadHeaderTimeout))
		Expect(srv.IdleTimeout).To(Equal(httpguard.IdleTimeout))
		Expect(srv.MaxHeaderBytes).To(Equal(httpguard.MaxHeaderBytes))
		Expect(srv.Handler).To(BeIdenticalTo(g))
	})
})

var _ = Describe("a DELETE", func() {
	It("sent chunked with nothing in it passes without a Content-Type, as one with Content-Length: 0 does", func() {
		s := start(httpguard.Config{}, nil)
		_, br := s.raw("DELETE /mcp/clock HTTP/1.1\r\nHost: " + s.addr + "\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
		a := readRaw(br)
		Expect(a.status).To(Equal(http.StatusOK), a.body)
		Expect(a.body).To(Equal(`{"read":0}`))
	})

	It("sent chunked with a body is a body like any other: JSON only, and the handler reads all of it", func() {
		s := start(httpguard.Config{}, nil)
		_, br := s.raw("DELETE /mcp/clock HTTP/1.1\r\nHost: " + s.addr + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
		a := readRaw(br)
		Expect(a.status).To(Equal(http.StatusUnsupportedMediaType))
		Expect(a.err.Message).To(ContainSubstring("DELETE /mcp/clock has no Content-Type"))
		_, br = s.raw("DELETE /mcp/clock HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
		a = readRaw(br)
		Expect(a.status).To(Equal(http.StatusOK), a.body)
		Expect(a.body).To(Equal(`{"read":2}`), "a JSON body is not looked at: the handler reads all of it")
	})

	// A client that sends Expect: 100-continue waits for 100 Continue
	// before it sends its body, and says so that it has one (RFC 9110
	// 10.1.1). The Guard does not look at the body of a DELETE its type
	// already refuses: the client is told no without sending it.
	It("sent chunked with Expect: 100-continue and no JSON type is refused without 100 Continue, its body never asked for", func() {
		s := start(httpguard.Config{BodyTimeout: 5 * time.Second}, nil)
		_, br := s.raw("DELETE /mcp/clock HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
		a := readRaw(br)
		Expect(a.status).To(Equal(http.StatusUnsupportedMediaType), a.body)
		Expect(a.err.Message).To(Equal(`agentsnap serve: DELETE /mcp/clock has Content-Type "text/plain"; serve takes JSON bodies only: send Content-Type: application/json`))
		Expect(a.close).To(BeTrue(), "the body it did not send is not waited for")
		Expect(s.calls.Load()).To(BeZero())

		By("and with JSON it is asked for its body, which the handler reads")
		c, br := s.raw("DELETE /mcp/clock HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusContinue))
		_, err = io.WriteString(c, "2\r\n{}\r\n0\r\n\r\n")
		Expect(err).NotTo(HaveOccurred())
		a = readRaw(br)
		Expect(a.status).To(Equal(http.StatusOK), a.body)
		Expect(a.body).To(Equal(`{"read":2}`))
	})

	It("sent chunked whose first byte never comes is answered 408 once the body's time is up, as any slow body is", func() {
		s := start(httpguard.Config{BodyTimeout: 200 * time.Millisecond}, nil)
		// Headers, then nothing: the look at the first byte must not
		// wait without the body's bound.
		c, br := s.raw("DELETE /mcp/clock HTTP/1.1\r\nHost: " + s.addr + "\r\nTransfer-Encoding: chunked\r\n\r\n")
		Expect(c.SetDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		a := readRaw(br)
		Expect(a.status).To(Equal(http.StatusRequestTimeout), a.body)
		Expect(a.err.Code).To(Equal("BODY_TIMEOUT"))
		Expect(a.err.Message).To(Equal("agentsnap serve: the request body did not arrive within 200ms (0 bytes came); send the whole body at once"))
		Expect(s.calls.Load()).To(BeZero())
	})
})
