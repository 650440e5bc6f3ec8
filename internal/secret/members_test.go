package secret_test

import (
	"github.com/agentsnap/agentsnap/internal/secret"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the credentials in a request body's members", func() {
	It("takes every string member whose name says it holds one, at any depth, and nothing else", func() {
		s := secret.New()
		s.AddMembers([]byte(`{"api_key":"sk-body-member-0123456789","extra_headers":{"x-goog-api-key":" AIzaHeader0123456789 ",`+
			`"Authorization":"Bearer sk-bearer-member-0123"},"metadata":[{"token":"tok-in-a-list-0123"}],`+
			`"prompt_cache_key":"cache-name-0123456789","max_tokens":4096,"user":"user-0123456789","key":{"nested":"not-a-key-0123"}}`), "the agent's request")
		Expect(s.Values()).To(Equal(map[string]string{
			"the api_key member of the agent's request":                          "sk-body-member-0123456789",
			"the x-goog-api-key member of the agent's request":                   "AIzaHeader0123456789",
			"the Authorization member of the agent's request":                    "Bearer sk-bearer-member-0123",
			"the credentials in the Authorization member of the agent's request": "sk-bearer-member-0123",
			"the token member of the agent's request":                            "tok-in-a-list-0123",
		}))
	})

	DescribeTable("tells a credential's name from a setting's",
		func(name string, is bool) {
			Expect(secret.IsCredentialMember(name)).To(Equal(is))
			s := secret.New()
			s.AddMembers([]byte(`{"temperature":0,"`+name+`":"value-0123456789"}`), "the body")
			if is {
				Expect(s.Values()).To(Equal(map[string]string{"the " + name + " member of the body": "value-0123456789"}))
			} else {
				Expect(s.Values()).To(BeEmpty())
			}
		},
		Entry(nil, "api_key", true), Entry(nil, "apiKey", true), Entry(nil, "x-api-key", true), Entry(nil, "key", true),
		Entry(nil, "access_token", true), Entry(nil, "idToken", true), Entry(nil, "client_secret", true), Entry(nil, "password", true),
		Entry(nil, "authorization_token", true), Entry(nil, "auth", true), Entry(nil, "cookie", true), Entry(nil, "credentials", true),
		Entry(nil, "prompt_cache_key", false), Entry(nil, "max_tokens", false), Entry(nil, "max_output_tokens", false),
		Entry(nil, "budget_tokens", false), Entry(nil, "safety_identifier", false), Entry(nil, "user", false), Entry(nil, "top_k", false),
	)

	It("adds nothing from text that is not JSON, or to a nil set", func() {
		s := secret.New()
		s.AddMembers([]byte(`{"api_key":`), "x")
		Expect(s.Values()).To(BeEmpty())
		var none *secret.Set
		none.AddMembers([]byte(`{"api_key":"sk-body-member-0123456789"}`), "x")
	})
})
