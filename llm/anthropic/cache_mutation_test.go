package anthropic_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/anthropic"
)

var _ = Describe("the prompt cache's breakpoints moved, in a body broken before the messages sent again", func() {
	// A body that moves its breakpoint is read from the first message it
	// sends again: the bytes before that message, its comma included, must
	// be the last request's, or a broken body passes.
	It("refuses, with DecodeRequest's error, a body without the comma before the first message sent again", func() {
		newest := func(i, n int) bool { return i == n-1 }
		prev := decodeBoth(nil, movingBody(5, newest))
		again := movingStep(4, false)
		body := []byte(strings.Replace(string(movingBody(7, newest)), ","+again, " "+again, 1))
		Expect(body).NotTo(Equal(movingBody(7, newest)), "the comma before message 4 is gone")
		_, wantErr := anthropic.DecodeRequest(body)
		Expect(wantErr).To(HaveOccurred())
		_, err := anthropic.DecodeNext(prev, body)
		Expect(err).To(MatchError(wantErr.Error()), "%s", body)
	})
})
