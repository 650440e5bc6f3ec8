package apis_test

import (
	"bytes"
	"log/slog"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/apis"
	"github.com/agentsnap/agentsnap/llm/live"
)

// A key sent over plain http to another machine can be read by anyone on
// the network between: a live recording warns, once, before its first
// call.
var _ = Describe("a live model whose key would travel unencrypted", func() {
	const key = "sk-cleartext-test-0123456789"

	// warnings returns what NewRouter logs for base with environ's keys.
	warnings := func(api, base string, environ map[string]string) string {
		GinkgoHelper()
		var logged bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
		_, err := apis.NewRouter(api, live.Config{BaseURL: base, Model: "m", Logger: logger}, func(k string) string { return environ[k] })
		Expect(err).NotTo(HaveOccurred())
		Expect(logged.String()).NotTo(ContainSubstring(key))
		return logged.String()
	}
	const warning = "over plain http, unencrypted: anyone on the network between can read it; use https"

	DescribeTable("warns once for plain http to another host",
		func(api, base string, environ map[string]string) {
			out := warnings(api, base, environ)
			Expect(out).To(ContainSubstring("the key goes to "))
			Expect(strings.Count(out, warning)).To(Equal(1), out)
		},
		Entry("a name, one API", "anthropic", "http://models.example.test", map[string]string{"ANTHROPIC_API_KEY": key}),
		Entry("an address, every API routed with one key", "", "http://192.0.2.7:8080/v1", map[string]string{"AGENTSNAP_API_KEY": key}),
		Entry("a key in the base URL's query, none in the environment", "", "http://models.example.test/v1?api-key="+key, nil),
	)

	DescribeTable("says nothing when the key is safe or there is none",
		func(base string, environ map[string]string) {
			Expect(warnings("", base, environ)).To(BeEmpty())
		},
		Entry("https", "https://models.example.test/v1", map[string]string{"AGENTSNAP_API_KEY": key}),
		Entry("localhost", "http://localhost:11434/v1", map[string]string{"AGENTSNAP_API_KEY": key}),
		Entry("a .localhost name", "http://agent.localhost:8080/v1", map[string]string{"AGENTSNAP_API_KEY": key}),
		Entry("127.0.0.1", "http://127.0.0.1:4010/v1", map[string]string{"AGENTSNAP_API_KEY": key}),
		Entry("::1", "http://[::1]:4010/v1", map[string]string{"AGENTSNAP_API_KEY": key}),
		Entry("no key (a local model server on the network)", "http://192.0.2.7:11434/v1", nil),
	)
})
