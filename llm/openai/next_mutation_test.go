package openai_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
)

var _ = Describe("reading a request against the last, a body broken where it repeats the last", func() {
	// Only the bytes after the last request's messages are scanned: the
	// repeated ones must be the last request's to the last byte, or a
	// broken body passes for the conversation it almost repeats.
	It("refuses, with DecodeRequest's error, a body whose last repeated message lost its closing brace", func() {
		msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`}
		prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
		broken := []string{msgs[0], `{"role":"assistant","content":"hello"x`, `{"role":"user","content":"next"}`}
		body := chatBody(bodyHead, broken, bodyTail)
		_, wantErr := openai.DecodeRequest(body)
		Expect(wantErr).To(HaveOccurred())
		_, err := openai.DecodeNext(prev, body)
		Expect(err).To(MatchError(wantErr.Error()), "%s", body)
	})
})
