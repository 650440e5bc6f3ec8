package wire_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/gemini"
	rs "github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
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
		// Else recorded: an empty attachment, or one of media type "audio/".
		Entry("an input_audio part with empty data", `{"type":"input_audio","input_audio":{"data":"","format":"wav"}}`, "an input_audio part whose input_audio.data is empty: give it the audio, base64-encoded, or leave the part out"),
		Entry("an input_audio part with an empty input_audio", `{"type":"input_audio","input_audio":{}}`, "an input_audio part whose input_audio.data is empty"),
		Entry("an input_audio part without its format", `{"type":"input_audio","input_audio":{"data":"aGk="}}`, "an input_audio part whose input_audio.format is empty: give it the audio's format (wav, mp3), or leave the part out"),
	)
})

// The same in the Responses API: an input_audio part whose input_audio
// lacks its data or format is refused, not recorded.
var _ = Describe("a Responses input_audio part without its audio or format", func() {
	DescribeTable("is refused with a 400 naming the input and part and what is missing, before any model call",
		func(part, want string) {
			drv := &capture{next: sayDriver}
			_, _, url := serveWire(drv)
			code, body := postResp(url, respReq(`"input":[{"role":"user","content":[{"type":"input_text","text":"Hear it."},`+part+`]}]`), nil)
			Expect(code).To(Equal(http.StatusBadRequest), body)
			Expect(body).To(ContainSubstring("wire: POST /v1/responses: input[0]: content[1]: " + want))
			drv.mu.Lock()
			defer drv.mu.Unlock()
			Expect(drv.reqs).To(BeEmpty(), "no model call")
		},
		Entry("empty data", `{"type":"input_audio","input_audio":{"data":"","format":"wav"}}`, "an input_audio part whose input_audio.data is empty: give it the audio, base64-encoded, or leave the part out"),
		Entry("no format", `{"type":"input_audio","input_audio":{"data":"aGk="}}`, "an input_audio part whose input_audio.format is empty"),
	)
})

// And an input_file or input_audio part with no file or audio at all: a
// part agentsnap records, so not "does not record it yet".
var _ = Describe("a Responses input_file or input_audio part without its content", func() {
	DescribeTable("is refused with a 400 naming the input and part and what is missing, before any model call",
		func(part, want string) {
			drv := &capture{next: sayDriver}
			_, _, url := serveWire(drv)
			code, body := postResp(url, respReq(`"input":[{"role":"user","content":[{"type":"input_text","text":"Read it."},`+part+`]}]`), nil)
			Expect(code).To(Equal(http.StatusBadRequest), body)
			Expect(body).To(ContainSubstring("wire: POST /v1/responses: input[0]: content[1]: " + want))
			Expect(body).NotTo(ContainSubstring("does not record it yet"))
			drv.mu.Lock()
			defer drv.mu.Unlock()
			Expect(drv.reqs).To(BeEmpty(), "no model call")
		},
		Entry("an input_file part with a filename only", `{"type":"input_file","filename":"a.pdf"}`, "an input_file part with none of file_data, file_url and file_id: give it the file's data, its URL or an uploaded file's id, or leave the part out"),
		Entry("an input_file part with empty members", `{"type":"input_file","file_data":"","file_url":"","file_id":""}`, "an input_file part with none of file_data, file_url and file_id"),
		Entry("an input_audio part without input_audio", `{"type":"input_audio"}`, "an input_audio part without its input_audio (data and format): give it the audio, or leave the part out"),
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

// twiceClaude is an agent on anthropic-sdk-go that sends the red pixel
// twice in its first message, a cache breakpoint on one copy only: on
// the first in its first call, on the second in its next (it moves its
// breakpoint, as an agent that caches up to its latest image does).
func twiceClaude() agentsnap.Runtime {
	return wire.Runtime("twice-claude", func(ctx context.Context, env *wire.Env) error {
		client := sdk.NewClient(sdkoption.WithBaseURL(strings.TrimSuffix(env.BaseURL, "/v1")), sdkoption.WithHTTPClient(env.HTTPClient),
			sdkoption.WithAPIKey("unused"), sdkoption.WithMaxRetries(0))
		image := func(cached bool) sdk.ContentBlockParamUnion {
			b := sdk.NewImageBlockBase64("image/png", base64.StdEncoding.EncodeToString(redPixel))
			if cached {
				b.OfImage.CacheControl = sdk.NewCacheControlEphemeralParam()
			}
			return b
		}
		var msgs []sdk.MessageParam
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if i == 0 {
				msgs = append(msgs, sdk.NewUserMessage(image(true), image(false), sdk.NewTextBlock(prompt)))
			} else {
				msgs[0] = sdk.NewUserMessage(image(false), image(true), sdk.NewTextBlock(env.Scenario.Prompts[0]))
				msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(prompt)))
			}
			msg, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: claudeModel, MaxTokens: 256, Messages: msgs})
			if err != nil {
				return err
			}
			msgs = append(msgs, msg.ToParam())
			return nil
		})
	})
}

// twiceChat is an agent on openai-go that sends the red pixel twice in
// one message: in high detail, then in low.
func twiceChat() agentsnap.Runtime {
	return wire.Runtime("twice-chat", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), option.WithMaxRetries(0))
		url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(redPixel)
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url, Detail: "high"}),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url, Detail: "low"}),
					openai.TextContentPart(prompt),
				})}})
			return err
		})
	})
}

// twiceResponses is an agent on openai-go's Responses API that sends the
// red pixel twice with its first prompt, in high detail then in low, and
// chains each later prompt by previous_response_id.
func twiceResponses() agentsnap.Runtime {
	return wire.Runtime("twice-responses", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), option.WithMaxRetries(0))
		image := func(detail responses.ResponseInputImageDetail) responses.ResponseInputContentUnionParam {
			img := responses.ResponseInputContentParamOfInputImage(detail)
			img.OfInputImage.ImageURL = param.NewOpt("data:image/png;base64," + base64.StdEncoding.EncodeToString(redPixel))
			return img
		}
		prev := ""
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			params := responses.ResponseNewParams{Model: "gpt-4o"}
			if i == 0 {
				params.Input.OfInputItemList = responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(
					responses.ResponseInputMessageContentListParam{image(responses.ResponseInputImageDetailHigh), image(responses.ResponseInputImageDetailLow),
						responses.ResponseInputContentParamOfInputText(prompt)}, responses.EasyInputMessageRoleUser)}
			} else {
				params.Input.OfString = param.NewOpt(prompt)
				params.PreviousResponseID = param.NewOpt(prev)
			}
			r, err := client.Responses.New(ctx, params)
			if err != nil {
				return err
			}
			prev = r.ID
			return nil
		})
	})
}

var _ = Describe("one image an agent sends twice in a request", func() {
	It("reaches a live Anthropic model as anthropic-sdk-go sent each copy, its cache breakpoint where the agent put it in every call, and is recorded as one digest", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "A red pixel." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/vision", `{"description": "a vision agent", "prompts": ["What is in the pictures?", "Are they the same?"], "agent": {}}`,
			`{"sessions":{"root":[{"text":"x"},{"text":"y"}]}}`)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = twiceClaude()
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		image := func(cached bool) map[string]any {
			b := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(redPixel)}}
			if cached {
				b["cache_control"] = map[string]any{"type": "ephemeral"}
			}
			return b
		}
		text := map[string]any{"type": "text", "text": "What is in the pictures?"}
		model.mu.Lock()
		defer model.mu.Unlock()
		Expect(model.bodies).To(HaveLen(2))
		first := func(i int) any { return model.bodies[i]["messages"].([]any)[0].(map[string]any)["content"] }
		Expect(first(0)).To(Equal([]any{image(true), image(false), text}), "the first call: the breakpoint on the first copy only")
		Expect(first(1)).To(Equal([]any{image(false), image(true), text}), "the next call: the breakpoint moved to the second copy")

		part, err := json.Marshal(llm.Attach("image", "image/png", "", redPixel))
		Expect(err).NotTo(HaveOccurred())
		log := string(mustRead(filepath.Join(dir, "session.jsonl")))
		Expect(log).To(ContainSubstring(`{"role":"user","content":[` + string(part) + `,` + string(part) + `,{"type":"text","text":"What is in the pictures?"}]}`))
		Expect(mediaReplay(ctx, dir, twiceClaude())).To(harness.MatchRecording())
	})

	It("reaches a live Chat Completions model as openai-go sent each copy, each in its own detail", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model, dir := recordVisionChat(ctx, "custom/vision", twiceChat())
		url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(redPixel)
		model.mu.Lock()
		defer model.mu.Unlock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["messages"]).To(Equal([]any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": url, "detail": "high"}},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": url, "detail": "low"}},
			map[string]any{"type": "text", "text": "What is in the picture?"},
		}}}))
		Expect(mediaReplay(ctx, dir, twiceChat())).To(harness.MatchRecording())
	})

	It("reaches a live Responses model as openai-go sent each copy, each in its own detail, in every call of a previous_response_id chain", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &respModel{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/vision", `{"description": "a vision agent", "prompts": ["What is in the picture?", "And its color?"], "agent": {}}`,
			`{"sessions":{"root":[{"text":"x"},{"text":"y"}]}}`)
		drv, err := rs.New(rs.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gpt-4o")
		opts.Runtime = twiceResponses()
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		image := func(detail string) string {
			return `{"type":"input_image","detail":"` + detail + `","image_url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(redPixel) + `"}`
		}
		bodies := model.requests()
		Expect(bodies).To(HaveLen(2))
		for _, body := range bodies {
			var input []map[string]json.RawMessage
			Expect(json.Unmarshal(body["input"], &input)).To(Succeed())
			Expect(string(input[0]["content"])).To(MatchJSON(`[` + image("high") + `,` + image("low") + `,{"type":"input_text","text":"What is in the picture?"}]`))
		}
		Expect(mediaReplay(ctx, dir, twiceResponses())).To(harness.MatchRecording())
	})
})

var _ = Describe("another image in a tool's result", func() {
	It("is request drift at the call that sends it, naming the message and the images, as a user's image is", func(ctx SpecContext) {
		dir := newFixture("custom/vision", `{"description": "an agent that looks", "prompts": ["What is on the screen?"], "agent": {}}`,
			`{"sessions":{"root":[{"toolCalls":[{"id":"toolu_s","name":"screenshot","arguments":{}}]},{"text":"A red pixel."}]}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = screenshotClaude(redPixel)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		o := mediaReplay(ctx, dir, screenshotClaude(bluePixel))
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(MatchRegexp(`^root \(root session\), model call 2 \(turn 1 step 2\): the conversation sent differs from message 3 on \(3 messages recorded, 3 now\); ` +
			`message 3's image changed: \[image image/png 14 bytes sha256:[0-9a-f]{12}…\] recorded, \[image image/png 14 bytes sha256:[0-9a-f]{12}…\] now$`))
		Expect(o.Report()).To(ContainSubstring("request drift: root (root session), model call 2"))
	})
})

// clipGenai is an agent on genai that asks about a clip of a video, the
// red pixel's bytes as video/mp4, from start to end.
func clipGenai(start, end time.Duration) agentsnap.Runtime {
	return wire.Runtime("clip-genai", func(ctx context.Context, env *wire.Env) error {
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "unused", Backend: genai.BackendGeminiAPI, HTTPClient: env.HTTPClient,
			HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimSuffix(env.BaseURL, "/v1")}})
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			video := genai.NewPartFromBytes(redPixel, "video/mp4")
			video.VideoMetadata = &genai.VideoMetadata{StartOffset: start, EndOffset: end}
			_, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", []*genai.Content{genai.NewContentFromParts(
				[]*genai.Part{video, genai.NewPartFromText(prompt)}, genai.RoleUser)}, nil)
			return err
		})
	})
}

var _ = Describe("a clip of a video (Gemini's videoMetadata)", func() {
	It("reaches the live model as genai sent it, is recorded with the video's digest, and another clip in a replay is drift naming it", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &geminiModelServer{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/vision", `{"description": "a video agent", "prompts": ["What happens in the clip?"], "agent": {}}`,
			`{"sessions":{"root":[{"text":"x"}]}}`)
		drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gemini-2.5-flash")
		opts.Provider = gemini.API
		opts.Runtime = clipGenai(time.Second, 10*time.Second)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["contents"]).To(Equal([]any{map[string]any{"role": "user", "parts": []any{
			map[string]any{"inlineData": map[string]any{"mimeType": "video/mp4", "data": base64.StdEncoding.EncodeToString(redPixel)},
				"videoMetadata": map[string]any{"startOffset": "1s", "endOffset": "10s"}},
			map[string]any{"text": "What happens in the clip?"},
		}}}))
		model.mu.Unlock()

		part := llm.Attach("file", "video/mp4", "", redPixel)
		part.Attachment.VideoMetadata = json.RawMessage(`{"endOffset":"10s","startOffset":"1s"}`)
		encoded, err := json.Marshal(part)
		Expect(err).NotTo(HaveOccurred())
		log := string(mustRead(filepath.Join(dir, "session.jsonl")))
		Expect(log).To(ContainSubstring(`{"role":"user","content":[` + string(encoded) + `,{"type":"text","text":"What happens in the clip?"}]}`))
		Expect(log).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString(redPixel)))

		Expect(mediaReplay(ctx, dir, clipGenai(time.Second, 10*time.Second))).To(harness.MatchRecording())
		o := mediaReplay(ctx, dir, clipGenai(time.Second, 20*time.Second))
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(MatchRegexp(`message 1's file changed: \[file video/mp4 14 bytes sha256:[0-9a-f]{12}… clip \{"endOffset":"10s","startOffset":"1s"\}\] recorded, ` +
			`\[file video/mp4 14 bytes sha256:[0-9a-f]{12}… clip \{"endOffset":"20s","startOffset":"1s"\}\] now`))
	})
})

var _ = Describe("an image's mediaResolution (Gemini)", func() {
	It("is refused with the API's 400 naming the content and part, before any model call, not dropped", func(ctx SpecContext) {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "unused", Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: url}})
		Expect(err).NotTo(HaveOccurred())
		image := genai.NewPartFromBytes(redPixel, "image/png")
		image.MediaResolution = &genai.PartMediaResolution{Level: genai.PartMediaResolutionLevelMediaResolutionHigh}
		_, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", []*genai.Content{genai.NewContentFromParts(
			[]*genai.Part{image, genai.NewPartFromText("What is in the picture?")}, genai.RoleUser)}, nil)
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.Code).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(ContainSubstring(`contents[0].parts[0]: a "mediaResolution" part: agentsnap does not record it yet, and will not drop it`))
		drv.mu.Lock()
		defer drv.mu.Unlock()
		Expect(drv.reqs).To(BeEmpty(), "no model call")
	})
})
