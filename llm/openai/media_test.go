package openai_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// mediaRequest has an image (a data: URL, with detail), audio and a file
// in its user message, between texts.
const mediaRequest = `{"model":"gpt-x","messages":[
	{"role":"system","content":"Look closely."},
	{"role":"user","content":[{"type":"text","text":"What is "},{"type":"text","text":"this?"},
		{"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8=","detail":"high"}},
		{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}},
		{"type":"text","text":"And this:"},
		{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERg=="}}]}]}`

var _ = Describe("images, audio and files in a request", func() {
	It("are parts of their own, where the agent put them, with a digest and no bytes", func() {
		call, err := openai.DecodeRequest([]byte(mediaRequest))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages).To(Equal([]session.Message{{Role: session.RoleUser, Content: []session.Part{
			session.TextPart("What is this?"),
			{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", MediaType: "image/png", Bytes: 5}},
			{Type: session.PartFile, Attachment: &session.Attachment{ID: "sha256:8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4", MediaType: "audio/wav", Bytes: 2}},
			session.TextPart("And this:"),
			{Type: session.PartFile, Attachment: &session.Attachment{ID: "sha256:315d429b7714cedb6ad04ac31240145257692630457f3c88253c5beceac76027", MediaType: "application/pdf", Bytes: 4, Name: "a.pdf"}},
		}}}))
		line, err := json.Marshal(call.Messages[0].Content[1])
		Expect(err).NotTo(HaveOccurred())
		Expect(string(line)).To(Equal(`{"type":"image","attachment":{"attachmentId":"sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","mediaType":"image/png","bytes":5}}`))
	})

	It("reach a live model of the same API as the agent sent them, and no other", func() {
		call, err := openai.DecodeRequest([]byte(mediaRequest))
		Expect(err).NotTo(HaveOccurred())
		req := &llm.Request{System: call.System, Messages: call.Messages, API: openai.API, Forward: &openai.Forward{Media: call.Media}}
		body, err := openai.EncodeRequest(req, "gpt-x", false)
		Expect(err).NotTo(HaveOccurred())
		var sent, got struct{ Messages []json.RawMessage }
		Expect(json.Unmarshal([]byte(mediaRequest), &sent)).To(Succeed())
		Expect(json.Unmarshal(body, &got)).To(Succeed())
		Expect(got.Messages).To(HaveLen(2))
		Expect(string(got.Messages[1])).To(MatchJSON(`{"role":"user","content":[{"type":"text","text":"What is this?"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8=","detail":"high"}},
			{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}},
			{"type":"text","text":"And this:"},
			{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERg=="}}]}`))

		for _, other := range []*llm.Request{
			{Messages: call.Messages},                  // a runtime's own call
			{Messages: call.Messages, API: "gemini"},   // another API's
			{Messages: call.Messages, API: openai.API}, // nothing forwarded
		} {
			_, err := openai.EncodeRequest(other, "gpt-x", false)
			Expect(err).To(MatchError(And(ContainSubstring("messages[0]: content[1]: an image part (image/png 5 bytes sha256:2cf24dba5fb0…)"),
				ContainSubstring("agentsnap cannot send it here"))))
		}
	})

	It("are read against the last request as in a whole one", func() {
		first := `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/a.png"}}]}]}`
		second := `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/a.png"}}]},` +
			`{"role":"assistant","content":"A cat."},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lG"}}]}]}`
		prev, err := openai.DecodeNext(nil, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		d, err := openai.DecodeNext(prev, []byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(1))
		whole, err := openai.DecodeRequest([]byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Call).To(Equal(whole))
		Expect(d.Call.Media).To(HaveLen(2))
		Expect(prev.Call.Media).To(HaveLen(1), "the one read against is unchanged")
	})

	DescribeTable("that agentsnap does not record yet are refused, never dropped, naming where and what",
		func(content, role, want string) {
			_, err := openai.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"` + role + `","content":` + content + `}]}`))
			Expect(err).To(MatchError(And(ContainSubstring(want), ContainSubstring("agentsnap does not record it yet"))))
		},
		Entry("a part of a type it does not know", `[{"type":"text","text":"a"},{"type":"video_url","video_url":{"url":"x"}}]`, "user", `messages[1].content[1]: a "video_url" part`),
		Entry("an image in a tool's result", `[{"type":"image_url","image_url":{"url":"x"}}]`, "tool", `messages[1].content[0] (in a tool message): a "image_url" part`),
		Entry("an image in the system prompt", `[{"type":"image_url","image_url":{"url":"x"}}]`, "system", `messages[1].content[0] (in a system message)`),
	)
})

var _ = Describe("an assistant message's refusal part", func() {
	It("is read as its text, as Responses reads one, neither refused nor dropped", func() {
		call, err := openai.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":[{"type":"text","text":"Sorry: "},{"type":"refusal","refusal":"I can't help with that."}]},{"role":"user","content":"ok"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages[1].Text()).To(Equal("Sorry: I can't help with that."))
	})
})
