package responses_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mediaInput has an image and audio in a user message, between texts,
// and a file in a function's output.
const mediaInput = `[{"role":"user","content":[{"type":"input_text","text":"What is this?"},
	{"type":"input_image","image_url":"data:image/png;base64,aGVsbG8=","detail":"high"},
	{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}},{"type":"input_text","text":"Say."}]},
	{"type":"function_call","call_id":"c1","name":"fetch","arguments":"{}"},
	{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"got:"},{"type":"input_file","file_id":"file-1","filename":"a.pdf"}]}]`

var _ = Describe("images, audio and files in a request", func() {
	It("are parts of their own, where the agent put them, with a digest and no bytes", func() {
		d, err := responses.NewServed().Decode([]byte(`{"model":"m","input":` + mediaInput + `}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Messages[0].Content).To(Equal([]session.Part{session.TextPart("What is this?"),
			{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", MediaType: "image/png", Bytes: 5}},
			{Type: session.PartFile, Attachment: &session.Attachment{ID: "sha256:8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4", MediaType: "audio/wav", Bytes: 2}},
			session.TextPart("Say.")}))
		Expect(d.Messages[2].Content[0].Content).To(Equal([]session.Part{session.TextPart("got:"),
			{Type: session.PartFile, Attachment: &session.Attachment{FileID: "file-1", Name: "a.pdf"}}}))
	})

	It("reach a live model of the same API as the agent sent them, those of a chain's earlier requests too, and no other", func() {
		s := responses.NewServed()
		d, err := s.Decode([]byte(`{"model":"m","input":` + mediaInput + `}`))
		Expect(err).NotTo(HaveOccurred())
		req := &llm.Request{Messages: d.Messages, API: responses.API, Forward: d.Forward()}
		b, err := responses.Client{}.Encode(req, "m")
		Expect(err).NotTo(HaveOccurred())
		var got struct{ Input json.RawMessage }
		Expect(json.Unmarshal(b, &got)).To(Succeed())
		Expect(string(got.Input)).To(MatchJSON(`[{"type":"message","role":"user","content":[{"type":"input_text","text":"What is this?"},
			{"type":"input_image","image_url":"data:image/png;base64,aGVsbG8=","detail":"high"},
			{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}},{"type":"input_text","text":"Say."}]},
			{"type":"function_call","call_id":"c1","name":"fetch","arguments":"{}"},
			{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"got:"},{"type":"input_file","file_id":"file-1","filename":"a.pdf"}]}]`))

		for _, other := range []*llm.Request{{Messages: d.Messages}, {Messages: d.Messages, API: "openai-chat"}, {Messages: d.Messages, API: responses.API}} {
			_, err := responses.Client{}.Encode(other, "m")
			Expect(err).To(MatchError(And(ContainSubstring("message 1: an image part (image/png 5 bytes sha256:2cf24dba5fb0…)"),
				ContainSubstring("agentsnap cannot send it here"))))
		}
	})

	DescribeTable("that agentsnap does not record yet are refused, never dropped, naming where and what",
		func(input, want string) {
			_, err := responses.NewServed().Decode([]byte(`{"model":"m","input":` + input + `}`))
			Expect(err).To(MatchError(And(HavePrefix(want), ContainSubstring("agentsnap does not record it yet"))))
		},
		Entry("an image in the system prompt", `[{"role":"developer","content":[{"type":"input_image","image_url":"https://x/a.png"}]}]`, `input[0]: content[0]: a "input_image" part`),
		Entry("a part of a type it does not know", `[{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_video","video_url":"x"}]}]`, `input[0]: content[1]: a "input_video" part`),
	)
})
