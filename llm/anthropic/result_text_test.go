package anthropic_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a tool result of text alone", func() {
	text := func(s string) anthropic.Block { return anthropic.Block{Type: anthropic.TypeText, Text: s} }

	It("is its text blocks joined, one part", func() {
		Expect(anthropic.Content{}.Text()).To(Equal(""))
		Expect(anthropic.Content{text("one")}.Text()).To(Equal("one"))
		Expect(anthropic.Content{text("one, "), {Type: anthropic.TypeThinking, Thinking: "x"}, text("two")}.Text()).To(Equal("one, two"))
		parts, err := anthropic.ResultParts(anthropic.Content{text("one, "), text("two")})
		Expect(err).NotTo(HaveOccurred())
		Expect(parts).To(Equal([]session.Part{session.TextPart("one, two")}))
	})

	It("costs one allocation, its parts: every result of every request read whole is one", func() {
		one := anthropic.Content{text("v2.4 added SSO login.")}
		Expect(testing.AllocsPerRun(100, func() { _ = one.Text() })).To(BeZero(), "one block's text is not copied")
		// Its place (for an error) and a copy of its text cost three more
		// allocations a result before.
		Expect(testing.AllocsPerRun(100, func() { _, _ = anthropic.ResultParts(one) })).To(BeNumerically("<=", 1))
	})
})
