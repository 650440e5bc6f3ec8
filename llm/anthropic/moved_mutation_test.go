package anthropic_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a request that moves its prompt cache breakpoint and changes a message it sends again", func() {
	// Only the breakpoints may differ in the messages read as the last
	// request's: any other change, however small, is the request's own.
	newest := func(i, n int) bool { return i == n-1 }
	DescribeTable("reads what DecodeRequest reads",
		func(change func(string) string, reused int) {
			first := decodeBoth(nil, movingBody(5, newest))
			body := change(string(movingBody(7, newest)))
			Expect(decodeBoth(first, []byte(body)).Reused).To(Equal(reused))
		},
		Entry("nothing but the breakpoint: read against the last", func(b string) string { return b }, 5),
		Entry("a text", func(b string) string { return strings.Replace(b, `"Step 3."`, `"Step 3!"`, 1) }, 0),
		Entry("a role", func(b string) string {
			return strings.Replace(b, `{"role":"user","content":[{"type":"text","text":"Who owns`, `{"role":"assistant","content":[{"type":"text","text":"Who owns`, 1)
		}, 0),
		Entry("a tool call's input", func(b string) string { return strings.Replace(b, `"input":{"n":3}`, `"input":{"n":33}`, 1) }, 0),
		Entry("a tool result", func(b string) string { return strings.Replace(b, `"fact 4"`, `"fact 5"`, 1) }, 0),
	)
})
