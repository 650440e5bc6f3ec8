package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("what the page shows of an image or file the agent sent", func() {
	It("shows each as an item of its own, with its type, size and digest, in a user message and in a tool's result", func() {
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user")
		l.event(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("What is it?"),
			{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:f8ee4e2e606045bc22267282f12ce090959c968d9a58343a925654e20c5b3883", MediaType: "image/png", Bytes: 14}}}})
		l.modelCall(session.FinishToolCalls, session.Part{Type: session.PartToolCall, ID: "c1", Name: "read_file", Arguments: `{}`})
		l.event(session.TypeToolResult, session.ToolResultData{Turn: 1, Step: 1, Message: session.Message{Role: session.RoleTool,
			Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "c1", Content: []session.Part{session.TextPart("a.pdf"),
				{Type: session.PartFile, Attachment: &session.Attachment{FileID: "file-1", Name: "a.pdf"}}}}}}})
		html := single(l)
		Expect(html).To(MatchRegexp(`<div class="it i-image"><span class="tag">image</span>.*\n?.*<pre>image/png 14 bytes sha256:f8ee4e2e6060…</pre>`))
		Expect(html).To(MatchRegexp(`<div class="it i-file"><span class="tag">file</span>.*\n?.*<pre>&#34;a.pdf&#34; file file-1</pre>`))
	})
})
