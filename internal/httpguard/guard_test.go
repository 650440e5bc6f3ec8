package httpguard_test

import (
	"net"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

// port is the port of a host:port.
func port(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	Expect(err).NotTo(HaveOccurred())
	return p
}

var _ = Describe("the Host check", func() {
	It("answers the address it listens on, and localhost on that port", func() {
		s := start(httpguard.Config{}, nil)
		for _, host := range []string{s.addr, "localhost:" + port(s.addr), "LOCALHOST:" + port(s.addr)} {
			a := s.do(func(r *http.Request) { r.Host = host })
			Expect(a.status).To(Equal(http.StatusOK), host+": "+a.body)
		}
		Expect(s.calls.Load()).To(BeEquivalentTo(3))
	})

	It("refuses DNS rebinding — a name of the attacker's on the right port — before the handler, naming both Hosts", func() {
		s := start(httpguard.Config{}, nil)
		p := port(s.addr)
		a := s.do(func(r *http.Request) { r.Host = "evil.example:" + p })
		Expect(a.status).To(Equal(http.StatusMisdirectedRequest))
		Expect(a.err.Type).To(Equal("agentsnap_error"))
		Expect(a.err.Code).To(Equal("HOST_NOT_ALLOWED"))
		Expect(a.err.Message).To(Equal(`agentsnap serve: the request's Host is "evil.example:` + p + `", and serve answers only requests to the address it printed, ` +
			s.addr + " or localhost:" + p + "; another Host is what a web page using DNS rebinding sends. Point the agent at the URL serve printed, http://" + s.addr + "/v1"))
		Expect(a.header.Get("X-Should-Retry")).To(Equal("false"))
		Expect(s.calls.Load()).To(BeZero())
		Expect(s.logged()).To(ConsistOf(HavePrefix("refused POST /v1/chat/completions (421): the request's Host is")))
		Expect(s.g.Refused()).To(BeEquivalentTo(1))
	})

	DescribeTable("refuses any other Host",
		func(host func(p string) string) {
			s := start(httpguard.Config{}, nil)
			a := s.do(func(r *http.Request) { r.Host = host(port(s.addr)) })
			Expect(a.status).To(Equal(http.StatusMisdirectedRequest), a.body)
			Expect(s.calls.Load()).To(BeZero())
		},
		Entry("another port", func(string) string { return "127.0.0.1:1" }),
		Entry("no port", func(string) string { return "127.0.0.1" }),
		Entry("the IPv6 loopback, which this IPv4 listener is not", func(p string) string { return "[::1]:" + p }),
		Entry("a name that resolves to loopback", func(p string) string { return "localtest.me:" + p }),
		Entry("localhost with a trailing dot", func(p string) string { return "localhost.:" + p }),
	)

	It("refuses a request with no Host at all (HTTP/1.0)", func() {
		s := start(httpguard.Config{}, nil)
		_, br := s.raw("GET /v1/models HTTP/1.0\r\n\r\n")
		Expect(readRaw(br).status).To(Equal(http.StatusMisdirectedRequest))
		Expect(s.calls.Load()).To(BeZero())
	})

	It("lists localhost for the loopback addresses only", func() {
		Expect(httpguard.Hosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})).To(Equal([]string{"127.0.0.1:8080", "localhost:8080"}))
		Expect(httpguard.Hosts(&net.TCPAddr{IP: net.IPv6loopback, Port: 8080})).To(Equal([]string{"[::1]:8080", "localhost:8080"}))
		Expect(httpguard.Hosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 8080})).To(Equal([]string{"127.0.0.2:8080"}))
	})
})

var _ = Describe("the cross-site checks", func() {
	It("refuses a web page's text/plain POST by its Origin, before the handler, naming the flag", func() {
		s := start(httpguard.Config{}, nil)
		a := s.do(func(r *http.Request) {
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Content-Type", "text/plain;charset=UTF-8")
		})
		Expect(a.status).To(Equal(http.StatusForbidden))
		Expect(a.err.Code).To(Equal("ORIGIN_NOT_ALLOWED"))
		Expect(a.err.Message).To(ContainSubstring(`a cross-site request from origin "https://evil.example"`))
		Expect(a.err.Message).To(ContainSubstring("restart serve with --allow-origin https://evil.example"))
		Expect(a.header.Get("Access-Control-Allow-Origin")).To(BeEmpty())
		Expect(s.calls.Load()).To(BeZero())
	})

	DescribeTable("refuses a body that is not JSON, before the handler",
		func(contentType, named string) {
			s := start(httpguard.Config{}, nil)
			a := s.do(func(r *http.Request) { r.Header.Set("Content-Type", contentType) })
			Expect(a.status).To(Equal(http.StatusUnsupportedMediaType))
			Expect(a.err.Code).To(Equal("UNSUPPORTED_CONTENT_TYPE"))
			Expect(a.err.Message).To(Equal("agentsnap serve: POST /v1/chat/completions has " + named + "; serve takes JSON bodies only: send Content-Type: application/json"))
			Expect(s.calls.Load()).To(BeZero())
		},
		Entry("text/plain (a cross-site fetch needs no preflight for it)", "text/plain", `Content-Type "text/plain"`),
		Entry("a form", "application/x-www-form-urlencoded", `Content-Type "application/x-www-form-urlencoded"`),
		Entry("multipart", "multipart/form-data; boundary=x", `Content-Type "multipart/form-data; boundary=x"`),
		Entry("none (a Blob without a type)", "", "no Content-Type"),
		Entry("JSON in a text type", "text/json", `Content-Type "text/json"`),
		Entry("unparseable", "application/json; =", `Content-Type "application/json; ="`),
	)

	DescribeTable("takes JSON",
		func(contentType string) {
			s := start(httpguard.Config{}, nil)
			Expect(s.do(func(r *http.Request) { r.Header.Set("Content-Type", contentType) }).status).To(Equal(http.StatusOK))
		},
		Entry("plain", "application/json"),
		Entry("with a charset", "application/json; charset=utf-8"),
		Entry("upper-case", "Application/JSON"),
		Entry("a +json type", "application/vnd.api+json"),
	)

	It("refuses a browser's cross-site request that sent no Origin (Sec-Fetch-Site)", func() {
		s := start(httpguard.Config{}, nil)
		for _, site := range []string{"cross-site", "same-site"} {
			a := s.do(func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", site) })
			Expect(a.status).To(Equal(http.StatusForbidden))
			Expect(a.err.Code).To(Equal("CROSS_SITE"))
			Expect(a.err.Message).To(ContainSubstring("(Sec-Fetch-Site: " + site + ")"))
			Expect(a.err.Message).To(ContainSubstring("--allow-origin ORIGIN"))
		}
		Expect(s.do(func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-origin") }).status).To(Equal(http.StatusOK))
		Expect(s.calls.Load()).To(BeEquivalentTo(1))
	})

	It("passes requests without an Origin (SDKs, curl) and from its own origin", func() {
		s := start(httpguard.Config{}, nil)
		Expect(s.do(nil).status).To(Equal(http.StatusOK))
		Expect(s.do(func(r *http.Request) { r.Header.Set("Origin", "http://"+s.addr) }).status).To(Equal(http.StatusOK))
		Expect(s.do(func(r *http.Request) { r.Header.Set("Origin", "null") }).status).To(Equal(http.StatusForbidden))
		Expect(s.do(func(r *http.Request) { r.Header.Set("Origin", "http://"+s.addr+".evil.example") }).status).To(Equal(http.StatusForbidden))
	})
})

var _ = Describe("--allow-origin", func() {
	const origin = "http://localhost:5173"
	// What the browser asks before the SDKs' calls: openai and
	// @anthropic-ai/sdk (x-stainless-*, one the list does not know yet
	// included), @google/genai, and agentsnap's session headers.
	sdkHeaders := []string{
		"authorization", "content-type", "x-stainless-arch", "x-stainless-lang", "x-stainless-os",
		"x-stainless-package-version", "x-stainless-retry-count", "x-stainless-runtime",
		"x-stainless-runtime-version", "x-stainless-timeout", "x-stainless-helper-method", "x-stainless-next-thing",
		"openai-organization", "openai-project",
		"x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access",
		"x-goog-api-key", "x-goog-api-client",
		"agentsnap-session", "agentsnap-parent", "agentsnap-call", "agentsnap-mode",
	}

	preflight := func(s *guarded, from string, headers ...string) answer {
		GinkgoHelper()
		req, err := http.NewRequest(http.MethodOptions, s.url+"/v1/chat/completions", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Origin", from)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", strings.Join(headers, ","))
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		return read(resp)
	}

	It("answers an allowed origin's preflight with every header the SDKs send, without the handler", func() {
		s := start(httpguard.Config{AllowOrigins: []string{origin}}, nil)
		a := preflight(s, origin, sdkHeaders...)
		Expect(a.status).To(Equal(http.StatusNoContent))
		Expect(a.header.Get("Access-Control-Allow-Origin")).To(Equal(origin))
		Expect(a.header.Get("Access-Control-Allow-Methods")).To(ContainSubstring("POST"))
		allowed := strings.Split(strings.ToLower(a.header.Get("Access-Control-Allow-Headers")), ", ")
		Expect(allowed).To(ContainElements(sdkHeaders))
		Expect(a.header.Values("Vary")).To(ContainElement("Origin"))
		Expect(s.calls.Load()).To(BeZero())
		Expect(s.logged()).To(BeEmpty())
	})

	It("leaves an unknown header out of the preflight, so the browser names it, and says so", func() {
		s := start(httpguard.Config{AllowOrigins: []string{origin}}, nil)
		a := preflight(s, origin, "content-type", "x-custom")
		Expect(a.status).To(Equal(http.StatusNoContent))
		Expect(strings.ToLower(a.header.Get("Access-Control-Allow-Headers"))).NotTo(ContainSubstring("x-custom"))
		Expect(s.logged()).To(ConsistOf("a preflight from " + origin + " asks for headers serve does not allow: x-custom"))
	})

	It("allows Chrome's private-network access for an allowed origin", func() {
		s := start(httpguard.Config{AllowOrigins: []string{origin}}, nil)
		req, _ := http.NewRequest(http.MethodOptions, s.url+"/v1/chat/completions", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Private-Network", "true")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(resp).header.Get("Access-Control-Allow-Private-Network")).To(Equal("true"))
	})

	It("marks the answers to an allowed origin readable, refusals included", func() {
		s := start(httpguard.Config{AllowOrigins: []string{origin}}, nil)
		a := s.do(func(r *http.Request) { r.Header.Set("Origin", origin) })
		Expect(a.status).To(Equal(http.StatusOK))
		Expect(a.header.Get("Access-Control-Allow-Origin")).To(Equal(origin))
		a = s.do(func(r *http.Request) { r.Header.Set("Origin", origin); r.Header.Set("Content-Type", "text/plain") })
		Expect(a.status).To(Equal(http.StatusUnsupportedMediaType))
		Expect(a.header.Get("Access-Control-Allow-Origin")).To(Equal(origin))
	})

	It("still refuses every other origin, their preflights too", func() {
		s := start(httpguard.Config{AllowOrigins: []string{origin}}, nil)
		for _, other := range []string{"http://localhost:5174", "https://localhost:5173", "http://evil.example"} {
			a := preflight(s, other, "content-type")
			Expect(a.status).To(Equal(http.StatusForbidden), other)
			Expect(a.header.Get("Access-Control-Allow-Origin")).To(BeEmpty())
			Expect(s.do(func(r *http.Request) { r.Header.Set("Origin", other) }).status).To(Equal(http.StatusForbidden), other)
		}
		Expect(s.calls.Load()).To(BeZero())
	})

	DescribeTable("reads an origin as a browser sends it",
		func(in, want string) {
			Expect(httpguard.ParseOrigin(in)).To(Equal(want))
		},
		Entry("exact", "http://localhost:5173", "http://localhost:5173"),
		Entry("upper-case", "HTTP://LocalHost:5173", "http://localhost:5173"),
		Entry("the default port", "https://app.example:443", "https://app.example"),
		Entry("a trailing slash", "http://localhost:5173/", "http://localhost:5173"),
		Entry("an extension", "chrome-extension://abcdef", "chrome-extension://abcdef"),
	)

	DescribeTable("refuses what is not an exact origin",
		func(in, why string) {
			_, err := httpguard.ParseOrigin(in)
			Expect(err).To(MatchError(`httpguard: origin "` + in + `" ` + why + "; give an exact origin scheme://host[:port], such as http://localhost:5173"))
		},
		Entry("any", "*", "would allow any web page"),
		Entry("null", "null", "would allow any web page"),
		Entry("no scheme", "localhost:5173", "is not a URL origin"),
		Entry("no host", "http://", "has no host"),
		Entry("a path", "http://localhost:5173/app", "has more than a scheme, host and port"),
		Entry("a query", "http://localhost:5173?x", "has more than a scheme, host and port"),
		Entry("a user", "http://u@localhost:5173", "has more than a scheme, host and port"),
	)

	It("refuses a Config with a bad origin or too many", func() {
		_, err := httpguard.New(http.NotFoundHandler(), httpguard.Config{Addr: &net.TCPAddr{}, AllowOrigins: []string{"*"}})
		Expect(err).To(MatchError(ContainSubstring(`origin "*" would allow any web page`)))
		many := make([]string, 65)
		for i := range many {
			many[i] = "http://localhost:" + strings.Repeat("1", 1+i%4)
		}
		_, err = httpguard.New(http.NotFoundHandler(), httpguard.Config{Addr: &net.TCPAddr{}, AllowOrigins: many})
		Expect(err).To(MatchError("httpguard: 65 allowed origins, more than 64"))
	})
})
