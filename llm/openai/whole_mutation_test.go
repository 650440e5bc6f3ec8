package openai_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
)

var _ = Describe("a request read whole, its body's buffer reused by the caller", func() {
	// A server reads bodies into a pooled buffer: what it recorded of the
	// last request (its settings, model, tools) must not change with the
	// next one read into the same bytes.
	It("keeps the settings and the tools' parameters as sent", func() {
		body := []byte(`{"model":"gpt-x","messages":[{"role":"user","content":"hi"}],"temperature":0.2,` +
			`"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],"stream":true}`)
		want, err := openai.DecodeRequest(bytes.Clone(body))
		Expect(err).NotTo(HaveOccurred())
		got, err := openai.DecodeRequest(body)
		Expect(err).NotTo(HaveOccurred())
		copy(body, strings.Repeat("#", len(body))) // the next request read into the buffer
		Expect(got).To(Equal(want))
		Expect(string(got.Members["temperature"])).To(Equal("0.2"))
		Expect(string(got.Tools[0].Parameters)).To(Equal(`{"type":"object"}`))
	})
})
