package gemini_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mediaRequest has an inline image and a file by URI in its user
// content, between texts.
const mediaRequest = `{"contents":[{"role":"user","parts":[{"text":"What is "},{"text":"this?"},
	{"inlineData":{"mimeType":"image/png","data":"aGVsbG8="}},{"text":"And this:"},
	{"fileData":{"mimeType":"application/pdf","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}]}`

var _ = Describe("images and files in a request", func() {
	It("are parts of their own, where the agent put them, with a digest and no bytes", func() {
		call, err := gemini.DecodeRequest([]byte(mediaRequest))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages).To(Equal([]session.Message{{Role: session.RoleUser, Content: []session.Part{
			session.TextPart("What is this?"),
			{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", MediaType: "image/png", Bytes: 5}},
			session.TextPart("And this:"),
			{Type: session.PartFile, Attachment: &session.Attachment{URL: "https://generativelanguage.googleapis.com/v1beta/files/abc", MediaType: "application/pdf"}},
		}}}))
	})

	It("reach a live model of the same API as the agent sent them, and no other", func() {
		call, err := gemini.DecodeRequest([]byte(mediaRequest))
		Expect(err).NotTo(HaveOccurred())
		b, err := gemini.GenerateContent{}.Encode(&llm.Request{Messages: call.Messages, API: gemini.API, Forward: &gemini.Forward{Media: call.Media}}, "m")
		Expect(err).NotTo(HaveOccurred())
		var got struct{ Contents json.RawMessage }
		Expect(json.Unmarshal(b, &got)).To(Succeed())
		Expect(string(got.Contents)).To(MatchJSON(`[{"role":"user","parts":[{"text":"What is this?"},
			{"inlineData":{"mimeType":"image/png","data":"aGVsbG8="}},{"text":"And this:"},
			{"fileData":{"mimeType":"application/pdf","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}]`))

		for _, other := range []*llm.Request{{Messages: call.Messages}, {Messages: call.Messages, API: "openai-chat"}, {Messages: call.Messages, API: gemini.API}} {
			_, err := gemini.GenerateContent{}.Encode(other, "m")
			Expect(err).To(MatchError(And(ContainSubstring("message 1: an image part (image/png 5 bytes sha256:2cf24dba5fb0…)"),
				ContainSubstring("agentsnap cannot send it here"))))
		}
	})

	It("are read against the last request as in a whole one", func() {
		first := `{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png"}}]}]}`
		second := `{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png"}}]},` +
			`{"role":"model","parts":[{"text":"A cat."}]},{"role":"user","parts":[{"inlineData":{"mimeType":"image/gif","data":"R0lG"}},{"text":"And?"}]}]}`
		prev, err := gemini.DecodeNext(nil, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		d, err := gemini.DecodeNext(prev, []byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(1))
		whole, err := gemini.DecodeRequest([]byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Call).To(Equal(whole))
		Expect(d.Call.Media).To(HaveLen(2))
		Expect(prev.Call.Media).To(HaveLen(1), "the one read against is unchanged")
	})

	DescribeTable("that agentsnap does not record yet, or that say too little, are refused, naming where and what",
		func(content, want string) {
			_, err := gemini.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]},` + content + `]}`))
			Expect(err).To(MatchError(HavePrefix(want)))
		},
		Entry("an image the model sent", `{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`,
			`contents[1].parts[0]: a "inlineData" part: agentsnap does not record it yet`),
		Entry("an image in a function's response", `{"role":"user","parts":[{"functionResponse":{"name":"f","response":{},"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}]}`,
			`contents[1].parts[0]: functionResponse.parts (media in a result), which agentsnap cannot record`),
		Entry("inline data without its type", `{"role":"user","parts":[{"inlineData":{"data":"AA=="}}]}`,
			`contents[1].parts[0].inlineData: want its mimeType and data (inlineData) or fileUri (fileData)`),
	)
})
