package secret_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"

	"github.com/agentsnap/agentsnap/internal/secret"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the credentials of a request's headers, taken apart as a server reads them", func() {
	It("takes the user name of Basic credentials alone, as a key given as the base URL's user (KEY@host) arrives", func() {
		// curl http://sk-user-key-0123@127.0.0.1:PORT/v1 sends "sk-user-key-0123:".
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil)
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("sk-user-key-0123:")))
		s := secret.New()
		s.AddRequest(r, "the agent's request")
		source, _, ok := s.FindString(`{"content":"the key is sk-user-key-0123"}`)
		Expect(ok).To(BeTrue(), "the user name alone is the key")
		Expect(source).To(Equal("the basic user name in the Authorization header of the agent's request"))
	})

	It("takes each cookie's value alone, which a server reads and may echo without its name", func() {
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil)
		r.Header.Set("Cookie", "theme=dark-mode-on; session=sess-cookie-0123456")
		s := secret.New()
		s.AddRequest(r, "the agent's request")
		source, _, ok := s.FindString(`{"content":"your session is sess-cookie-0123456"}`)
		Expect(ok).To(BeTrue(), "the cookie's value without its name")
		Expect(source).To(Equal("the session cookie of the agent's request"))
		Expect(s.Redact("session=sess-cookie-0123456; theme=dark-mode-on")).To(Equal("session=[REDACTED]; theme=[REDACTED]"))
	})
})

var _ = Describe("the credentials of a base URL's user info", func() {
	It("takes them as the Basic credentials a client sends them in, which a server may echo", func() {
		// Go's client turns the user info into Authorization: Basic when
		// the API takes its key in another header (x-api-key, x-goog-api-key).
		s := secret.New()
		s.AddURL("the base URL", "http://url-user-0123:url-pass-0123@127.0.0.1:9/")
		basic := base64.StdEncoding.EncodeToString([]byte("url-user-0123:url-pass-0123"))
		source, _, ok := s.FindString("401: bad credentials Basic " + basic)
		Expect(ok).To(BeTrue(), "the base64 form is the user info too")
		Expect(source).To(Equal("the user info of the base URL as Basic credentials"))
		Expect(s.Redact("Basic " + basic)).To(Equal("Basic [REDACTED]"))
	})
})
