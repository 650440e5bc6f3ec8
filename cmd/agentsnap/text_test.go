package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("printable, on what a terminal would act on", func() {
	DescribeTable("escapes every mark that reorders text",
		func(in, want string) { Expect(printable(in)).To(Equal(want)) },
		Entry("LRE, the first embedding", "a\u202ab", `a\u202ab`),
		Entry("RLO, the last override", "a\u202eb", `a\u202eb`),
		Entry("LRI, the first isolate", "a\u2066b", `a\u2066b`),
		Entry("PDI, the last isolate", "a\u2069b", `a\u2069b`),
		Entry("the LRM and RLM marks", "a\u200e\u200fb", `a\u200e\u200fb`),
		Entry("the Arabic letter mark", "a\u061cb", `a\u061cb`),
	)

	It("escapes bytes that are not UTF-8, even with nothing else to escape", func() {
		Expect(printable("fork/a\xffb")).To(Equal(`fork/a\xffb`))
	})

	It("leaves plain text as it is", func() {
		Expect(printable("fork/code-word_2 ü")).To(Equal("fork/code-word_2 ü"))
	})
})
