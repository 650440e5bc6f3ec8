package secret_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/internal/secret"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a secret set", func() {
	It("keeps values of MinLen bytes or more, names each by its first source, and remembers the short ones", func() {
		s := secret.New()
		Expect(s.Add("OPENAI_API_KEY", "sk-12345")).To(BeTrue(), "exactly MinLen bytes")
		Expect(s.Add("the bearer token in the Authorization header", "sk-12345")).To(BeFalse(), "the first source names it")
		Expect(s.Add("DEEPSEEK_API_KEY", "sk-1234")).To(BeFalse(), "one byte short")
		Expect(s.Add("GEMINI_API_KEY", "")).To(BeFalse())
		Expect(s.Len()).To(Equal(1))
		Expect(s.Short()).To(Equal([]string{"DEEPSEEK_API_KEY"}))
		Expect(s.Values()).To(Equal(map[string]string{"OPENAI_API_KEY": "sk-12345", "DEEPSEEK_API_KEY": "sk-1234"}), "the short one too, for a set it is handed to to remember")
		src, at, ok := s.FindString("echo: sk-12345")
		Expect([]any{src, at, ok}).To(Equal([]any{"OPENAI_API_KEY", 6, true}))
		Expect(s.Redact("sk-1234 sk-12345")).To(Equal("sk-1234 [REDACTED]"), "the short value is no secret")
	})

	It("redacts the start of a value a message cut, right before the cut mark, down to MinCut bytes", func() {
		const v = "sk-0123456789abcdef"
		s := secret.New()
		s.Add("OPENAI_API_KEY", v)
		for k := secret.MinCut; k < len(v); k++ {
			Expect(s.Redact(`was "`+v[:k]+secret.Cut+`"`)).To(Equal(`was "`+secret.Redacted+secret.Cut+`"`), "cut after %d bytes", k)
		}
		Expect(s.Redact(v[:secret.MinCut-1]+secret.Cut)).To(Equal(v[:secret.MinCut-1]+secret.Cut), "too short to tell")
		Expect(s.Redact("ends in "+v[:10])).To(Equal("ends in "+v[:10]), "no cut: text that happens to start like a key")
		Expect(s.Redact(v + secret.Cut + " and " + v[:9] + secret.Cut + " and " + v[:5])).To(Equal(secret.Redacted + secret.Cut + " and " + secret.Redacted + secret.Cut + " and " + v[:5]))
		Expect(s.Redact(v[:9]+"x"+secret.Cut)).To(Equal(v[:9]+"x"+secret.Cut), "not the start of the value")
	})

	It("redacts the start of a value's JSON escaping a message cut", func() {
		const v = `pa"ss-0123456789`
		s := secret.New()
		s.Add("DB_PASSWORD", v)
		Expect(s.Redact(`"text":"pa\"ss-01` + secret.Cut)).To(Equal(`"text":"` + secret.Redacted + secret.Cut))
	})

	DescribeTable("redacts and finds a value in every encoding it travels in",
		func(value string, encode func(string) string) {
			s := secret.New()
			s.Add("OPENAI_API_KEY", value)
			text := "before " + encode(value) + " after"
			Expect(s.Redact(text)).To(Equal("before [REDACTED] after"))
			src, at, ok := s.Find([]byte(text))
			Expect(ok).To(BeTrue())
			Expect(src).To(Equal("OPENAI_API_KEY"))
			Expect(at).To(Equal(len("before ")))
		},
		Entry("raw", "sk-abcdef0123456789", func(v string) string { return v }),
		Entry("as the session log escapes a JSON string", `sk-"quoted"\back`+"\b\x01", func(v string) string {
			b := jsonscan.AppendString(nil, v)
			return string(b[1 : len(b)-1])
		}),
		Entry("as encoding/json escapes HTML", "sk-<a&b>0123456789", func(v string) string {
			b, _ := json.Marshal(v)
			return string(b[1 : len(b)-1])
		}),
		Entry("as JSON inside a JSON string (tool arguments)", `sk-"x"0123456789`, func(v string) string {
			inner, _ := json.Marshal(v)
			outer, _ := json.Marshal(string(inner[1 : len(inner)-1]))
			return string(outer[1 : len(outer)-1])
		}),
		Entry("query-escaped", "AIza+Sy/0123=456789", url.QueryEscape),
		Entry("path-escaped", "AIza Sy/0123?456789", url.PathEscape),
	)

	It("redacts a value holding another whole, and finds the earliest", func() {
		s := secret.New()
		s.Add("OPENAI_API_KEY", "sk-0123456789")
		s.Add("the Authorization header", "Bearer sk-0123456789")
		Expect(s.Redact("got Authorization: Bearer sk-0123456789")).To(Equal("got Authorization: [REDACTED]"))
		src, at, _ := s.FindString("x sk-0123456789 then Bearer sk-0123456789")
		Expect(src).To(Equal("OPENAI_API_KEY"))
		Expect(at).To(Equal(2))
		_, _, ok := s.Find([]byte("nothing here"))
		Expect(ok).To(BeFalse())
	})

	It("redacts errors keeping errors.Is, and leaves an error without secrets as it is", func() {
		s := secret.New()
		s.Add("OPENAI_API_KEY", "sk-0123456789")
		base := errors.New("base")
		err := s.Error(fmt.Errorf("%w: the server said sk-0123456789", base))
		Expect(err.Error()).To(Equal("base: the server said [REDACTED]"))
		Expect(errors.Is(err, base)).To(BeTrue())
		clean := fmt.Errorf("%w: nothing", base)
		Expect(s.Error(clean)).To(BeIdenticalTo(clean))
		Expect(s.Error(nil)).To(BeNil())
	})

	It("redacts each write of a writer", func() {
		s := secret.New()
		s.Add("OPENAI_API_KEY", "sk-0123456789")
		var out bytes.Buffer
		w := s.Writer(&out)
		n, err := fmt.Fprintf(w, "key sk-0123456789\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(len("key sk-0123456789\n")))
		Expect(out.String()).To(Equal("key [REDACTED]\n"))
		Expect(s.Writer(nil)).To(BeNil())
	})

	It("treats a nil set as empty, and travels in a context", func() {
		var s *secret.Set
		Expect(s.Add("X", "0123456789")).To(BeFalse())
		Expect(s.Redact("0123456789")).To(Equal("0123456789"))
		Expect(s.Len()).To(Equal(0))
		s.AddHeader(http.Header{"Authorization": {"Bearer 0123456789"}})
		s.Merge(secret.New())
		Expect(secret.FromContext(context.Background())).To(BeNil())
		set := secret.New()
		Expect(secret.FromContext(secret.NewContext(context.Background(), set))).To(BeIdenticalTo(set))
	})

	It("is safe for concurrent use: values added while others redact and find", func() {
		s := secret.New()
		s.Add("FIRST", "sk-first-0123456789")
		var wg sync.WaitGroup
		for i := range 8 {
			// Each value longer than the last, so adding one reorders
			// what the others are searching.
			v := fmt.Sprintf("sk-concurrent-%s-%d", strings.Repeat("x", 8*i), i)
			wg.Go(func() {
				s.Add(fmt.Sprintf("KEY_%d", i), v)
				Expect(s.Redact("x " + v)).To(Equal("x [REDACTED]"))
				_, _, ok := s.FindString(v)
				Expect(ok).To(BeTrue())
				_ = s.Values()
			})
			wg.Go(func() {
				for range 50 {
					_, _, ok := s.Find([]byte("sk-first-0123456789"))
					Expect(ok).To(BeTrue())
				}
			})
		}
		wg.Wait()
		Expect(s.Len()).To(Equal(9))
	})
})

var _ = Describe("gathering secrets", func() {
	It("takes every key variable, trimmed, and the base URL variable's credentials", func() {
		env := map[string]string{
			"AGENTSNAP_API_KEY": " sk-agentsnap-0001\n", "OPENAI_API_KEY": "sk-openai-0002", "DEEPSEEK_API_KEY": "sk-deepseek-0003",
			"ANTHROPIC_API_KEY": "sk-ant-0004-xyz", "GEMINI_API_KEY": "AIza-gemini-0005", "GOOGLE_API_KEY": "AIza-google-0006",
			"AGENTSNAP_BASE_URL": "https://proxy.example/v1?key=AIza-in-url-0007",
		}
		s := secret.FromEnv(func(k string) string { return env[k] })
		Expect(s.Values()).To(Equal(map[string]string{
			"AGENTSNAP_API_KEY": "sk-agentsnap-0001", "OPENAI_API_KEY": "sk-openai-0002", "DEEPSEEK_API_KEY": "sk-deepseek-0003",
			"ANTHROPIC_API_KEY": "sk-ant-0004-xyz", "GEMINI_API_KEY": "AIza-gemini-0005", "GOOGLE_API_KEY": "AIza-google-0006",
			"the key= query parameter of AGENTSNAP_BASE_URL": "AIza-in-url-0007",
		}))
	})

	DescribeTable("takes the credentials of a URL's query and user info, by source",
		func(raw string, want map[string]string) {
			s := secret.New()
			s.AddURL("the base URL", raw)
			Expect(s.Values()).To(Equal(want))
		},
		Entry("Gemini's key=", "https://generativelanguage.googleapis.com/v1beta/openai?key=AIzaSyExample0123", map[string]string{"the key= query parameter of the base URL": "AIzaSyExample0123"}),
		Entry("credential names", "https://h/v1?api_key=k-0123456789&access_token=t-0123456789&sig=s-0123456789", map[string]string{
			"the api_key= query parameter of the base URL": "k-0123456789", "the access_token= query parameter of the base URL": "t-0123456789", "the sig= query parameter of the base URL": "s-0123456789",
		}),
		Entry("a value that looks random under any name", "https://h/v1?x=ab12cd34ef56gh78ij90", map[string]string{"the x= query parameter of the base URL": "ab12cd34ef56gh78ij90"}),
		Entry("not a version or a plain word", "https://h/v1?api-version=2024-10-21-preview&region=westeurope", map[string]string{}),
		Entry("a bare token", "https://h/v1?AIzaSyBareToken0123", map[string]string{"the query of the base URL": "AIzaSyBareToken0123"}),
		Entry("an escaped value, decoded", "https://h/v1?key=AIza%2BSy%2F0123", map[string]string{"the key= query parameter of the base URL": "AIza+Sy/0123"}),
		Entry("user info", "https://proxyuser:proxy-pass-0123@h/v1", map[string]string{
			"the user info of the base URL": "proxyuser:proxy-pass-0123", "the password in the user info of the base URL": "proxy-pass-0123", "the user name in the user info of the base URL": "proxyuser",
			"the user info of the base URL as Basic credentials": "cHJveHl1c2VyOnByb3h5LXBhc3MtMDEyMw==",
		}),
	)

	It("redacts a query value as the URL wrote it, also when that is not the canonical escaping", func() {
		s := secret.New()
		s.AddURL("the base URL", "https://h/v1?key=AIza%2bSy+0123%7e")
		Expect(s.Redact(`Post "https://h/v1/chat/completions?key=AIza%2bSy+0123%7e": EOF`)).To(Equal(`Post "https://h/v1/chat/completions?key=[REDACTED]": EOF`))
		Expect(s.Redact("the key AIza+Sy 0123~ echoed")).To(Equal("the key [REDACTED] echoed"))
	})

	It("takes every credential header, and each part of an Authorization header", func() {
		basic := base64.StdEncoding.EncodeToString([]byte("user:basic-pass-0123"))
		s := secret.New()
		s.AddHeader(http.Header{
			"Authorization":       {"Bearer sk-bearer-0123"},
			"Proxy-Authorization": {"Basic " + basic},
			"X-Api-Key":           {"sk-ant-x-api-0123"},
			"Api-Key":             {"azure-api-key-0123"},
			"X-Goog-Api-Key":      {"AIza-goog-0123"},
			"Content-Type":        {"application/json"},
			"Openai-Beta":         {"assistants=v2"},
		})
		Expect(s.Values()).To(Equal(map[string]string{
			"the Authorization header":                                        "Bearer sk-bearer-0123",
			"the bearer token in the Authorization header":                    "sk-bearer-0123",
			"the Proxy-Authorization header":                                  "Basic " + basic,
			"the basic credentials in the Proxy-Authorization header":         basic,
			"the decoded basic credentials in the Proxy-Authorization header": "user:basic-pass-0123",
			"the basic password in the Proxy-Authorization header":            "basic-pass-0123",
			"the x-api-key header":                                            "sk-ant-x-api-0123",
			"the api-key header":                                              "azure-api-key-0123",
			"the x-goog-api-key header":                                       "AIza-goog-0123",
			"the basic user name in the Proxy-Authorization header":           "user", // short: remembered, not a secret
		}))
	})

	It("takes an incoming request's headers and URL", func() {
		r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/chat/completions?key=AIza-request-0123", nil)
		Expect(err).NotTo(HaveOccurred())
		r.Header.Set("X-Goog-Api-Key", "AIza-goog-req-0123")
		r.Header.Set("Authorization", "Bearer sk-agent-req-0123")
		r.Header.Set("X-Api-Key", "unused") // a dummy key, too short to be one
		s := secret.New()
		s.AddRequest(r, "the request")
		Expect(s.Values()).To(Equal(map[string]string{
			"the x-goog-api-key header of the request":                    "AIza-goog-req-0123",
			"the Authorization header of the request":                     "Bearer sk-agent-req-0123",
			"the bearer token in the Authorization header of the request": "sk-agent-req-0123",
			"the key= query parameter of the request":                     "AIza-request-0123",
			"the x-api-key header of the request":                         "unused", // short: remembered, not a secret
		}))
		Expect(s.Short()).To(ConsistOf("the x-api-key header of the request"))
	})

	DescribeTable("tells credential headers by name",
		func(name string, want bool) { Expect(secret.IsCredentialHeader(name)).To(Equal(want)) },
		Entry(nil, "authorization", true), Entry(nil, "x-goog-api-key", true), Entry(nil, "X-Auth-Token", true),
		Entry(nil, "anthropic-version", false), Entry(nil, "Content-Type", false), Entry(nil, "Agentsnap-Session", false),
	)
})
