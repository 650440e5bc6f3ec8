package gemini_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a video's clip (videoMetadata)", func() {
	const video = `{"role":"user","parts":[{"fileData":{"mimeType":"video/mp4","fileUri":"https://x/v.mp4"},"videoMetadata":{"startOffset":"1s","fps":2,"endOffset":"5s"}},{"text":"What happens?"}]}`

	It("is recorded in the video's attachment, in canonical JSON, read whole or against the last request alike, and reaches a live model as sent", func() {
		first := `{"contents":[` + video + `]}`
		second := `{"contents":[` + video + `,{"role":"model","parts":[{"text":"A cat."}]},{"role":"user","parts":[{"text":"And then?"}]}]}`
		prev, err := gemini.DecodeNext(nil, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(prev.Call.Messages[0].Content[0].Attachment.VideoMetadata)).To(Equal(`{"endOffset":"5s","fps":2,"startOffset":"1s"}`))
		d, err := gemini.DecodeNext(prev, []byte(second))
		Expect(err).NotTo(HaveOccurred())
		whole, err := gemini.DecodeRequest([]byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Call).To(Equal(whole))

		req := &llm.Request{Messages: whole.Messages, API: gemini.API, Forward: &gemini.Forward{Media: whole.Media}}
		b, err := gemini.GenerateContent{}.Encode(req, "m")
		Expect(err).NotTo(HaveOccurred())
		var body struct{ Contents []json.RawMessage }
		Expect(json.Unmarshal(b, &body)).To(Succeed())
		Expect(string(body.Contents[0])).To(MatchJSON(video))
	})

	It("beside no image or file, or in a model content, is refused, naming where", func() {
		_, err := gemini.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi","videoMetadata":{"startOffset":"1s"}}]}]}`))
		Expect(err).To(MatchError(HavePrefix(`contents[0].parts[0]: a "videoMetadata" part: agentsnap does not record it yet`)))
		_, err = gemini.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"a","videoMetadata":{"startOffset":"1s"}}]}]}`))
		Expect(err).To(MatchError(HavePrefix(`contents[1].parts[0]: a "videoMetadata" part`)))
	})
})
