package secret_test

import (
	"encoding/base64"
	"net/http"

	"github.com/agentsnap/agentsnap/internal/secret"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a secret set, at the edges of what it takes", func() {
	It("redacts whole a value that begins with another value of the set", func() {
		s := secret.New()
		s.Add("OPENAI_API_KEY", "sk-proj-01234567")
		s.Add("the x-api-key header", "sk-proj-01234567-tail-89abcdef")
		Expect(s.Redact("echo: sk-proj-01234567-tail-89abcdef.")).To(Equal("echo: [REDACTED]."))
		src, at, ok := s.FindString("echo: sk-proj-01234567-tail-89abcdef.")
		Expect([]any{src, at, ok}).To(Equal([]any{"the x-api-key header", 6, true}), "named by the whole value found")
	})

	It("redacts a bare query token as the URL wrote it, also when that is not the canonical escaping", func() {
		s := secret.New()
		s.AddURL("the base URL", "https://h/v1?AIzaSyBare%7e0123")
		Expect(s.Redact(`Post "https://h/v1/chat/completions?AIzaSyBare%7e0123": EOF`)).To(Equal(`Post "https://h/v1/chat/completions?[REDACTED]": EOF`))
		Expect(s.Redact("the token AIzaSyBare~0123 echoed")).To(Equal("the token [REDACTED] echoed"))
	})

	It("hands on a query value as the URL wrote it, so a copy of the set finds it too", func() {
		s := secret.New()
		s.AddURL("the base URL", "https://h/v1?key=AIza%2bSy0123%7e&AIzaSyBare%7e0123")
		Expect(s.Values()).To(Equal(map[string]string{
			"the key= query parameter of the base URL":                      "AIza+Sy0123~",
			"the key= query parameter of the base URL as the URL writes it": "AIza%2bSy0123%7e",
			"the query of the base URL":                                     "AIzaSyBare~0123",
			"the query of the base URL as the URL writes it":                "AIzaSyBare%7e0123",
		}))
		c := secret.New()
		c.AddAll(s.Values())
		_, _, found := c.FindString(`{"text":"you called with key=AIza%2bSy0123%7e"}`)
		Expect(found).To(BeTrue())
	})

	DescribeTable("takes a query parameter by its name, whatever its value looks like",
		func(raw, source, value string) {
			s := secret.New()
			s.AddURL("the base URL", raw)
			Expect(s.Values()).To(Equal(map[string]string{source: value}))
		},
		Entry("a session", "https://h/v1?session_id=plainwordsonly", "the session_id= query parameter of the base URL", "plainwordsonly"),
		Entry("a signature", "https://h/v1?x-sig=plainwordsonly", "the x-sig= query parameter of the base URL", "plainwordsonly"),
	)

	It("takes a value of exactly 16 letters and digits as a token under any name", func() {
		s := secret.New()
		s.AddURL("the base URL", "https://h/v1?x=ab12cd34ef56gh78&y=ab12cd34ef56gh7")
		Expect(s.Values()).To(Equal(map[string]string{"the x= query parameter of the base URL": "ab12cd34ef56gh78"}), "15 bytes are no token")
	})

	It("takes no model name as a token, however random it looks", func() {
		s := secret.New()
		s.AddURL("the base URL", "https://h/v1?model=gpt-4o-2024-08-06&deployment_model=claude-3-5-sonnet-20241022")
		Expect(s.Len()).To(BeZero())
	})

	It("hands on every value of a source that gave several, numbering the later ones", func() {
		s := secret.New()
		s.AddURL("the base URL", "https://h/v1?AIzaSyFirst0123&AIzaSySecond0123")
		Expect(s.Len()).To(Equal(2))
		Expect(s.Values()).To(Equal(map[string]string{"the query of the base URL": "AIzaSyFirst0123", "the query of the base URL (2)": "AIzaSySecond0123"}))
		Expect(s.Redact("AIzaSyFirst0123 AIzaSySecond0123")).To(Equal("[REDACTED] [REDACTED]"))
	})

	It("takes the password of Basic credentials alone too", func() {
		s := secret.New()
		s.AddHeader(http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("u:basic-pass-0123"))}})
		Expect(s.Redact("the password was basic-pass-0123")).To(Equal("the password was [REDACTED]"))
	})

	DescribeTable("tells a cookie or a session token header as a credential",
		func(name string) { Expect(secret.IsCredentialHeader(name)).To(BeTrue()) },
		Entry(nil, "Cookie"), Entry(nil, "X-Session-Cookie"), Entry(nil, "X-Client-Secret"),
	)
})
