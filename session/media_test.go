package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("image and file parts", func() {
	It("read dsh's image part and write it back as it was, in a user message and in a tool's result", func() {
		for _, line := range []string{
			// dsh's inline-image-prompt (its member order is the log's: attachmentId, mediaType, bytes, …)
			`{"role":"user","content":[{"type":"text","text":"Inspect this image"},{"type":"image","attachment":{"attachmentId":"sha256:b1ff9c8ea3a780bad09b346c423d2d0e46815926879b18e841d928376a946640","mediaType":"image/png","bytes":69,"width":1,"height":1}}]}`,
			`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"red.png"},{"type":"image","attachment":{"attachmentId":"sha256:b1ff","mediaType":"image/png","bytes":69,"width":1,"height":1,"name":"red.png"}}],"isError":false}]}`,
			`{"role":"user","content":[{"type":"file","attachment":{"url":"https://example.com/a.pdf","mediaType":"application/pdf"}},{"type":"file","attachment":{"fileId":"file-1","name":"b.txt"}}]}`,
		} {
			var m session.Message
			Expect(json.Unmarshal([]byte(line), &m)).To(Succeed())
			out, err := session.MarshalData(&m)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(out)).To(Equal(line))
		}
	})

	It("change the message's digest when the image changes, and only then", func() {
		digest := func(id string) [32]byte {
			sum, err := session.SumData(&session.Message{Role: "user", Content: []session.Part{session.TextPart("what is it?"),
				{Type: session.PartImage, Attachment: &session.Attachment{ID: id, MediaType: "image/png", Bytes: 3}}}})
			Expect(err).NotTo(HaveOccurred())
			return sum
		}
		Expect(digest("sha256:aa")).To(Equal(digest("sha256:aa")))
		Expect(digest("sha256:aa")).NotTo(Equal(digest("sha256:bb")))
	})
})
