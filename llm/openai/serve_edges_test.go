package openai_test

import (
	"bytes"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("serving a stream to a writer that needs no flush", func() {
	// A nil flush panicked with a nil dereference at the first frame: a
	// caller writing to a buffer had to pass func() {} without being told.
	It("takes a nil flush and writes the same frames", func() {
		msg := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Jupiter")}}
		chunks := llm.StreamMessage(msg, &session.Usage{InputTokens: 3, OutputTokens: 1}, "")
		var b bytes.Buffer
		Expect(openai.ServeStream(&b, nil, "gpt-test", slices.Values(chunks))).To(Succeed())
		Expect(b.String()).To(Equal(serve(chunks)))
	})
})
