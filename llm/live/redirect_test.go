package live_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// headerKeyAPI is plainAPI with the key in x-api-key, as Anthropic takes
// it: a header net/http keeps on a redirect to another host.
type headerKeyAPI struct{ plainAPI }

func (headerKeyAPI) Authorize(h http.Header, key string) { h.Set("X-Api-Key", key) }

var _ = Describe("the live driver and a redirect", func() {
	const key = "sk-redirect-test-0123456789"

	It("sends neither the key nor the request to another origin a redirect names, and says where it pointed", func() {
		var elsewhere atomic.Int64
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { elsewhere.Add(1) }))
		defer other.Close()
		base := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		}))
		defer base.Close()
		d, err := live.New(headerKeyAPI{}, live.Config{BaseURL: base.URL + "/v1?api-key=az-" + key, APIKey: key, Model: "m"})
		Expect(err).NotTo(HaveOccurred())
		out := streamAll(d)
		Expect(elsewhere.Load()).To(BeZero(), "the redirect was followed")
		Expect(out).To(HaveLen(1))
		Expect(out[0].Reason.Failure.Code).To(Equal(live.CodeTransport))
		msg := out[0].Reason.Failure.Message
		Expect(msg).To(ContainSubstring(" answered 307 with a redirect to " + other.URL + ", another origin; agentsnap follows redirects only within the origin it was given"))
		Expect(msg).NotTo(ContainSubstring(key))
	})

	It("follows a redirect within the base URL's origin", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/moved/stream" {
				http.Redirect(w, r, "/moved/stream", http.StatusPermanentRedirect)
				return
			}
			Expect(r.Header.Get("X-Api-Key")).To(Equal(key))
			b, _ := io.ReadAll(r.Body)
			Expect(string(b)).To(Equal(`{}`), "a 308 sends the body again")
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: OK\n\n")
		}))
		defer srv.Close()
		d, err := live.New(headerKeyAPI{}, live.Config{BaseURL: srv.URL, APIKey: key, Model: "m"})
		Expect(err).NotTo(HaveOccurred())
		out := streamAll(d)
		Expect(out).To(HaveLen(2))
		Expect(out[0].Text).To(Equal("OK"))
		Expect(out[1].Reason.Kind).To(Equal(session.FinishStop))
	})

	DescribeTable("SameOriginClient tells a redirect's origin from the first request's",
		func(from, to string, hops int, want string) {
			c := live.SameOriginClient(nil)
			var via []*http.Request
			for range hops {
				via = append(via, &http.Request{URL: mustURL(from)})
			}
			err := c.CheckRedirect(&http.Request{URL: mustURL(to), Response: &http.Response{StatusCode: http.StatusFound}}, via)
			if want == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("another path", "https://api.example/v1/x", "https://api.example/v2/y?q=1", 1, ""),
		Entry("the default port written out", "https://api.example/v1", "https://API.example:443/v1", 1, ""),
		Entry("another host", "https://api.example/v1", "https://evil.example/v1", 1, "redirect to https://evil.example:443, another origin"),
		Entry("a subdomain, where net/http keeps Authorization", "https://example.com/v1", "https://api.example.com/v1", 1, "another origin"),
		Entry("https to http on the same host", "https://api.example/v1", "http://api.example/v1", 1, "redirect to http://api.example:80"),
		Entry("https to http on the same port", "https://api.example:8443/v1", "http://api.example:8443/v1", 1, "redirect to http://api.example:8443"),
		Entry("another port", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1", 1, "another origin"),
		Entry("the eleventh", "https://api.example/v1", "https://api.example/v1", 10, "stopped after 10 redirects"),
	)

	It("asks the given client's own CheckRedirect after its own check", func() {
		stop := errors.New("no redirects at all")
		c := live.SameOriginClient(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return stop }})
		err := c.CheckRedirect(&http.Request{URL: mustURL("https://api.example/b")}, []*http.Request{{URL: mustURL("https://api.example/a")}})
		Expect(err).To(MatchError(stop))
		Expect(http.DefaultClient.CheckRedirect).To(BeNil(), "the default client was changed")
	})
})

func mustURL(s string) *url.URL {
	GinkgoHelper()
	u, err := url.Parse(s)
	Expect(err).NotTo(HaveOccurred())
	return u
}
