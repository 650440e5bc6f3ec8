package wire_test

import (
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// An image part whose URL is empty is the agent's mistake: the request is
// refused with a 400 that names the part and says what is wrong with it,
// not as a kind of part agentsnap does not record yet.
var _ = Describe("a Chat Completions image_url part with an empty URL", func() {
	It("is refused with a 400 naming the message and part and saying the URL is empty, before any model call", func(ctx SpecContext) {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o",
			Messages: []openai.ChatCompletionMessageParamUnion{
				openai.SystemMessage("You look at pictures."),
				openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.TextContentPart("What is in the picture?"),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: ""}),
				}),
			}})
		var apiErr *openai.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "err: %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(Equal("wire: POST /v1/chat/completions: messages[1].content[1]: an image_url part whose URL is empty (image_url.url): give it the image's https: or data: URL, or leave the part out"))
		Expect(apiErr.Message).NotTo(ContainSubstring("does not record it yet"))
		drv.mu.Lock()
		defer drv.mu.Unlock()
		Expect(drv.reqs).To(BeEmpty(), "no model call")
	})

	It("is refused so when the image_url member is missing too", func() {
		_, _, url := serveWire(&capture{next: sayDriver})
		code, body := post(url, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, nil)
		Expect(code).To(Equal(http.StatusBadRequest))
		Expect(body).To(ContainSubstring(`messages[0].content[0]: an image_url part whose URL is empty (image_url.url)`))
	})
})

// The same for a file or audio part without its file or audio.
var _ = Describe("a Chat Completions file or input_audio part without its content", func() {
	DescribeTable("is refused with a 400 naming the message and part and what is missing, before any model call",
		func(part, want string) {
			drv := &capture{next: sayDriver}
			_, _, url := serveWire(drv)
			code, body := post(url, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Read it."},`+part+`]}]}`, nil)
			Expect(code).To(Equal(http.StatusBadRequest))
			Expect(body).To(ContainSubstring("messages[0].content[1]: " + want))
			Expect(body).NotTo(ContainSubstring("does not record it yet"))
			drv.mu.Lock()
			defer drv.mu.Unlock()
			Expect(drv.reqs).To(BeEmpty(), "no model call")
		},
		Entry("a file part without file", `{"type":"file"}`, "a file part with neither file.file_id nor file.file_data"),
		Entry("a file part with an empty file", `{"type":"file","file":{"filename":"a.pdf"}}`, "a file part with neither file.file_id nor file.file_data"),
		Entry("an input_audio part without input_audio", `{"type":"input_audio"}`, "an input_audio part without its input_audio"),
	)
})

// The same in the Responses API: an input_image part with no image.
var _ = Describe("a Responses input_image part with an empty image_url and no file_id", func() {
	It("is refused with a 400 naming the input and part and saying the image is missing, before any model call", func() {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		code, body := postResp(url, respReq(`"input":[{"role":"user","content":[{"type":"input_text","text":"What is in the picture?"},{"type":"input_image","image_url":""}]}]`), nil)
		Expect(code).To(Equal(http.StatusBadRequest))
		Expect(body).To(ContainSubstring(`wire: POST /v1/responses: input[0]: content[1]: an input_image part with an empty image_url and no file_id: give it the image's https: or data: URL, or an uploaded file's id, or leave the part out`))
		Expect(body).NotTo(ContainSubstring("does not record it yet"))
		drv.mu.Lock()
		defer drv.mu.Unlock()
		Expect(drv.reqs).To(BeEmpty(), "no model call")
	})
})
