package openai_test

import (
	"encoding/base64"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm/openai"
)

var _ = Describe("credentials", func() {
	DescribeTable("RedactURL keeps where a URL points and the query's names, and no secret",
		func(raw, want string) { Expect(openai.RedactURL(raw)).To(Equal(want)) },
		Entry("no query", "https://api.openai.com/v1", "https://api.openai.com/v1"),
		Entry("Gemini's key and more", "https://generativelanguage.googleapis.com/v1beta/openai?key=AIzaSy0123456789&alt=sse",
			"https://generativelanguage.googleapis.com/v1beta/openai?key=[REDACTED]&alt=[REDACTED]"),
		Entry("user info and a fragment", "https://user:pass-0123456789@proxy.example:8443/v1#frag", "https://proxy.example:8443/v1"),
		Entry("a bare token", "https://h/v1?AIzaSyBare0123456789", "https://h/v1?[REDACTED]"),
		Entry("not a URL", "http://[::1/v1?token=abc", "(the given base URL)"),
	)

	It("names every credential the driver sends by where it travels", func() {
		d, err := openai.New(openai.Config{
			BaseURL: "https://h/v1?key=AIza-query-0123&alt=json", APIKey: "sk-bearer-0123",
			Header: http.Header{"X-Goog-Api-Key": {"AIza-goog-0123"}, "Openai-Beta": {"assistants=v2"}},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Credentials()).To(Equal(map[string]string{
			"the Authorization header":                     "Bearer sk-bearer-0123",
			"the bearer token in the Authorization header": "sk-bearer-0123",
			"the x-goog-api-key header":                    "AIza-goog-0123",
			"the key= query parameter of the base URL":     "AIza-query-0123",
		}))
	})

	It("counts the Basic header net/http makes of the base URL's user info", func() {
		d, err := openai.New(openai.Config{BaseURL: "http://proxyuser:proxy-pass-0123@h/v1"})
		Expect(err).NotTo(HaveOccurred())
		basic := base64.StdEncoding.EncodeToString([]byte("proxyuser:proxy-pass-0123"))
		Expect(d.Credentials()).To(HaveKeyWithValue("the Authorization header", "Basic "+basic))
		Expect(d.Credentials()).To(HaveKeyWithValue("the password in the user info of the base URL", "proxy-pass-0123"))
	})

	It("adds what it sends to the recording's set in the call's context, and scrubs all the set holds from its failures", func(ctx SpecContext) {
		const notSent = "AIza-gemini-not-sent-0123"
		p := newProvider(failing(http.StatusUnauthorized, `{"error":{"message":"bad key `+notSent+` via AIza-query-0123 and sk-bearer-0123"}}`))
		d := newDriver(p, func(c *openai.Config) { c.BaseURL = p.URL + "?key=AIza-query-0123"; c.APIKey = "sk-bearer-0123" })
		set := secret.New()
		set.Add("GEMINI_API_KEY", notSent)
		chunks := collect(secret.NewContext(ctx, set), d, userRequest("x"))
		Expect(last(chunks).Failure.Message).To(Equal("openai: HTTP 401 Unauthorized: bad key [REDACTED] via [REDACTED] and [REDACTED]; check the API key"))
		Expect(set.Values()).To(HaveKeyWithValue("the key= query parameter of the base URL", "AIza-query-0123"))
		Expect(set.Values()).To(HaveKeyWithValue("the bearer token in the Authorization header", "sk-bearer-0123"))
	})

	It("scrubs its credentials from a transport error that quotes the URL", func(ctx SpecContext) {
		d, err := openai.New(openai.Config{BaseURL: "https://h/v1?key=AIza-query-0123", Model: "m",
			HTTPClient: &http.Client{Transport: quoting{}}})
		Expect(err).NotTo(HaveOccurred())
		chunks := collect(ctx, d, userRequest("x"))
		Expect(last(chunks).Failure.Message).To(Equal("openai: the request to h failed: refused https://h/v1/chat/completions?key=[REDACTED]; check the network and the base URL"))
	})
})

// quoting is a transport whose errors quote the request's URL.
type quoting struct{}

func (quoting) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, &quotedError{r.URL.String()}
}

type quotedError struct{ url string }

func (e *quotedError) Error() string { return "refused " + e.url }
