package anthropic_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the prompt cache's breakpoints moved, after a request whose messages array moved in the body", func() {
	// A request that changes a member before its messages (max_tokens
	// raised) moves the whole array in the body; the next one that moves
	// a breakpoint is read from the message it sends again, found where
	// that request holds it, not where the one before held it.
	It("read the request that moves the breakpoint against the last, not whole", func() {
		newest := func(i, n int) bool { return i == n-1 }
		bodyOf := func(head string, n int, marked func(i, n int) bool) []byte {
			return []byte(strings.Replace(string(movingBody(n, marked)), nextHead, head, 1))
		}
		first := decodeBoth(nil, movingBody(5, newest))
		// Message 4 keeps its breakpoint; max_tokens grew a digit.
		longer := strings.Replace(nextHead, `"max_tokens":1024`, `"max_tokens":16384`, 1)
		second := decodeBoth(first, bodyOf(longer, 7, func(i, _ int) bool { return i == 4 }))
		Expect(second.Reused).To(Equal(5))
		Expect(second.SameRest).To(BeFalse())
		third := decodeBoth(second, bodyOf(longer, 9, newest))
		Expect(third.Reused).To(Equal(7), "read against the last request, message 4 read again for its breakpoint")
		Expect(third.SameRest).To(BeTrue())
	})
})
