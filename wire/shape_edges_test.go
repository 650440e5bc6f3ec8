package wire_test

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
)

// A body member of the wrong JSON kind is named by its JSON path in the
// request, with what the API takes there: the agent is in any language,
// and a Go struct's name and type tell it nothing.
var _ = Describe("a request body with a member of the wrong kind", func() {
	It("is refused to an OpenAI SDK agent naming messages and what Chat Completions takes there", func(ctx SpecContext) {
		drv := &capture{next: sayDriver}
		h, _, url := serveWire(drv)
		client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}, option.WithJSONSet("messages", "hi"))
		var apiErr *openai.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "err: %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		want := "wire: POST /v1/chat/completions: messages is a string: send an array of message objects"
		Expect(apiErr.Message).To(Equal(want))
		Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
		noCall(drv)
	})

	It("is refused to an OpenAI SDK agent naming input and what Responses takes there", func(ctx SpecContext) {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
		_, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4o",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}}, option.WithJSONSet("instructions", 5))
		var apiErr *openai.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "err: %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(Equal("wire: POST /v1/responses: instructions is the number 5: send a string"))
		noCall(drv)
	})

	It("is refused to an Anthropic SDK agent in its error shape naming the block's text", func(ctx SpecContext) {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		client := sdk.NewClient(sdkoption.WithBaseURL(url), sdkoption.WithAPIKey(claudeAgentKey), sdkoption.WithMaxRetries(0))
		_, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: claudeModel, MaxTokens: 16,
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))}},
			sdkoption.WithJSONSet("messages.0.content.0.text", 4))
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(strings.TrimSpace(apiErr.RawJSON())).To(Equal(`{"type":"error","error":{"type":"invalid_request_error","message":"wire: POST /v1/messages: messages[0].content[0].text is the number 4: send a string"}}`))
		noCall(drv)
	})

	It("is refused to a genai agent in its error shape naming contents", func(ctx SpecContext) {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "unused", Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: url, ExtraBody: map[string]any{"contents": map[string]any{}}}})
		Expect(err).NotTo(HaveOccurred())
		_, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil)
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.Code).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Status).To(Equal("INVALID_ARGUMENT"))
		Expect(apiErr.Message).To(Equal("wire: POST /v1beta/models/gemini-2.5-flash:generateContent: contents is an object: send an array of content objects"))
		noCall(drv)
	})

	DescribeTable("is refused with a 400 naming the member by its path, with each array's index",
		func(path, body, want string) {
			drv := &capture{next: sayDriver}
			_, _, url := serveWire(drv)
			Expect(refusal(postTo(url, path, body))).To(Equal("wire: POST " + path + ": " + want))
			noCall(drv)
		},
		Entry("a model that is a number", "/v1/chat/completions", `{"model":3,"messages":[{"role":"user","content":"hi"}]}`, "model is the number 3: send a string"),
		Entry("a body that is an array", "/v1/chat/completions", `[1]`, "the body is an array: send a JSON object"),
		Entry("a role in a later message", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":3}]}`, "messages[1].role is the number 3: send a string"),
		Entry("a tool call's arguments as an object, where the message before has no tool calls", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{}}}]}]}`,
			"messages[1].tool_calls[0].function.arguments is an object: send a string"),
		Entry("a stream switch that is a string", "/v1/messages", `{"model":"m","max_tokens":8,"stream":"yes","messages":[{"role":"user","content":"hi"}]}`, "stream is a string: send true or false"),
		Entry("a message that is a string", "/v1/messages", `{"model":"m","max_tokens":8,"messages":["hi"]}`, "messages[0] is a string: send a message object"),
		Entry("count_tokens' messages as a string", "/v1/messages/count_tokens", `{"model":"m","messages":"hi"}`, "messages is a string: send an array of message objects"),
		Entry("count_tokens' messages as a number", "/v1/messages/count_tokens", `{"model":"m","messages":3}`, "messages is the number 3: send an array of message objects"),
		Entry("Anthropic messages as an object", "/v1/messages", `{"model":"m","max_tokens":8,"messages":{}}`, "messages is an object: send an array of message objects"),
		Entry("a Gemini part's text that is a number", "/v1beta/models/m:generateContent", `{"contents":[{"parts":[{"text":"a"}]},{"parts":[{"text":3}]}]}`, "contents[1].parts[0].text is the number 3: send a string"),
		Entry("Gemini's countTokens contents as an object", "/v1beta/models/m:countTokens", `{"contents":{}}`, "contents is an object: send an array of content objects"),
		Entry("an Anthropic image's source type that is a number", "/v1/messages",
			`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":[{"type":"image","source":{"type":3}}]}]}`,
			"messages[0].content[0].source.type is the number 3: send a string"),
		Entry("a Gemini inlineData's mimeType that is a number", "/v1beta/models/m:generateContent",
			`{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":3,"data":"x"}}]}]}`,
			"contents[0].parts[0].inlineData.mimeType is the number 3: send a string"),
		Entry("a Responses item's role that is a number", "/v1/responses", `{"model":"m","input":[{"type":"message","role":5,"content":"hi"}]}`, "input[0].role is the number 5: send a string"),
	)
})

// noCall expects drv saw no model call.
func noCall(drv *capture) {
	GinkgoHelper()
	drv.mu.Lock()
	defer drv.mu.Unlock()
	Expect(drv.reqs).To(BeEmpty(), "no model call")
}
