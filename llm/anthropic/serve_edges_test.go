package anthropic_test

import (
	"bytes"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("serving a stream to a writer that needs no flush", func() {
	// A nil flush panicked with a nil dereference at the first event: a
	// caller writing to a buffer had to pass func() {} without being told.
	It("takes a nil flush and writes the same events", func() {
		msg := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Jupiter")}}
		chunks := llm.StreamMessage(msg, &session.Usage{InputTokens: 3, OutputTokens: 1}, "")
		var b bytes.Buffer
		Expect(anthropic.ServeStream(&b, nil, "msg_1", "claude-sonnet-4-5", slices.Values(chunks))).To(Succeed())
		Expect(b.String()).To(Equal(serve(chunks)))
	})
})
