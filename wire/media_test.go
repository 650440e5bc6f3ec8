package wire_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/gemini"
	llmopenai "github.com/agentsnap/agentsnap/llm/openai"
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

// A red and a blue pixel: two images of one size and type.
var (
	redPixel  = []byte("\x89PNG red pixel")
	bluePixel = []byte("\x89PNG blu pixel")
)

const visionScenario = `{"description": "a vision agent", "prompts": ["What is in the picture?"], "agent": {}}`

// visionChat is an agent on openai-go that sends each prompt with image,
// a PNG, in one user message, and the text after it.
func visionChat(image []byte) agentsnap.Runtime {
	return visionChatImage(openai.ChatCompletionContentPartImageImageURLParam{
		URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(image), Detail: "high"})
}

// visionChatImage is visionChat with the image part as given.
func visionChatImage(img openai.ChatCompletionContentPartImageImageURLParam) agentsnap.Runtime {
	return wire.Runtime("vision-chat", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), option.WithMaxRetries(0))
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.ImageContentPart(img), openai.TextContentPart(prompt),
				})}})
			return err
		})
	})
}

// recordVisionChat records runtime live, against a chat model of its own,
// into a new fixture named name, and returns the model and the folder.
func recordVisionChat(ctx context.Context, name string, runtime agentsnap.Runtime) (*chatModel, string) {
	GinkgoHelper()
	model := &chatModel{}
	srv := httptest.NewServer(model)
	DeferCleanup(srv.Close)
	dir := newFixture(name, visionScenario, `{"sessions":{"root":[{"text":"x"}]}}`)
	drv, err := llmopenai.New(llmopenai.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
	Expect(err).NotTo(HaveOccurred())
	opts := recorder.LiveOptions(drv, srv.URL, "gpt-4o")
	opts.Runtime = runtime
	_, err = recorder.Record(ctx, dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return model, dir
}

// swappingChat is an agent on openai-go that sends its first prompt with
// the red pixel and, from the second on, the whole conversation with the
// blue one in its place: it rewrites its history.
func swappingChat() agentsnap.Runtime {
	return wire.Runtime("swapping-chat", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), option.WithMaxRetries(0))
		var conv []openai.ChatCompletionMessageParamUnion
		first := func(image []byte) openai.ChatCompletionMessageParamUnion {
			return openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(image)}),
				openai.TextContentPart(env.Scenario.Prompts[0])})
		}
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if i == 0 {
				conv = append(conv, first(redPixel))
			} else {
				conv[0] = first(bluePixel)
				conv = append(conv, openai.UserMessage(prompt))
			}
			answer, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: conv})
			if err != nil {
				return err
			}
			conv = append(conv, answer.Choices[0].Message.ToParam())
			return nil
		})
	})
}

// visionClaude is visionChat on anthropic-sdk-go.
func visionClaude(image []byte) agentsnap.Runtime {
	return wire.Runtime("vision-claude", func(ctx context.Context, env *wire.Env) error {
		client := sdk.NewClient(sdkoption.WithBaseURL(env.BaseURL[:len(env.BaseURL)-len("/v1")]), sdkoption.WithHTTPClient(env.HTTPClient),
			sdkoption.WithAPIKey("unused"), sdkoption.WithMaxRetries(0))
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: claudeModel, MaxTokens: 256,
				Messages: []sdk.MessageParam{sdk.NewUserMessage(
					sdk.NewImageBlockBase64("image/png", base64.StdEncoding.EncodeToString(image)),
					sdk.NewTextBlock(prompt))}})
			return err
		})
	})
}

// visionGenai is visionChat on genai.
func visionGenai(image []byte) agentsnap.Runtime {
	return wire.Runtime("vision-genai", func(ctx context.Context, env *wire.Env) error {
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "unused", Backend: genai.BackendGeminiAPI, HTTPClient: env.HTTPClient,
			HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimSuffix(env.BaseURL, "/v1")}})
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", []*genai.Content{genai.NewContentFromParts(
				[]*genai.Part{genai.NewPartFromBytes(image, "image/png"), genai.NewPartFromText(prompt)}, genai.RoleUser)}, nil)
			return err
		})
	})
}

// visionResponses is an agent on openai-go's Responses API that sends its
// first prompt with image and chains each later prompt to the answer
// before by previous_response_id, sending the prompt alone.
func visionResponses(image []byte) agentsnap.Runtime {
	return wire.Runtime("vision-responses", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), option.WithMaxRetries(0))
		prev := ""
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			params := responses.ResponseNewParams{Model: "gpt-4o"}
			if i == 0 {
				img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailHigh)
				img.OfInputImage.ImageURL = param.NewOpt("data:image/png;base64," + base64.StdEncoding.EncodeToString(image))
				params.Input.OfInputItemList = responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(
					responses.ResponseInputMessageContentListParam{img, responses.ResponseInputContentParamOfInputText(prompt)}, responses.EasyInputMessageRoleUser)}
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

// screenshotClaude is an agent on anthropic-sdk-go with a screenshot
// tool: it answers each call of it with a text and image, a PNG.
func screenshotClaude(image []byte) agentsnap.Runtime {
	return wire.Runtime("screenshot-claude", func(ctx context.Context, env *wire.Env) error {
		client := sdk.NewClient(sdkoption.WithBaseURL(strings.TrimSuffix(env.BaseURL, "/v1")), sdkoption.WithHTTPClient(env.HTTPClient),
			sdkoption.WithAPIKey("unused"), sdkoption.WithMaxRetries(0))
		tool := sdk.ToolUnionParamOfTool(sdk.ToolInputSchemaParam{Properties: map[string]any{}}, "screenshot")
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			msgs := []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(prompt))}
			for {
				msg, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: claudeModel, MaxTokens: 256, Messages: msgs, Tools: []sdk.ToolUnionParam{tool}})
				if err != nil {
					return err
				}
				msgs = append(msgs, msg.ToParam())
				var results []sdk.ContentBlockParamUnion
				for _, b := range msg.Content {
					if b.Type == "tool_use" {
						results = append(results, sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{ToolUseID: b.ID,
							Content: []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: "the screen:"}},
								{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
									MediaType: "image/png", Data: base64.StdEncoding.EncodeToString(image)}}}}}}})
					}
				}
				if len(results) == 0 {
					return nil
				}
				msgs = append(msgs, sdk.NewUserMessage(results...))
			}
		})
	})
}

// chatModel is a live Chat Completions endpoint of this test: it keeps
// every request body and says "A red pixel.".
type chatModel struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (m *chatModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	b, err := io.ReadAll(r.Body)
	Expect(err).NotTo(HaveOccurred())
	var body map[string]any
	Expect(json.Unmarshal(b, &body)).To(Succeed())
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"A red pixel.\"},\"finish_reason\":null}]}\n\n")
	fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// mediaReplay replays the fixture in dir with runtime.
func mediaReplay(ctx context.Context, dir string, runtime agentsnap.Runtime) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(ctx, fx, harness.Options{Runtime: runtime})
	Expect(err).NotTo(HaveOccurred())
	return o
}

// expectDigestOnly checks that the root log of dir holds the image as a
// digest: its part, and not its bytes.
func expectDigestOnly(dir string, image []byte) {
	GinkgoHelper()
	log := string(mustRead(filepath.Join(dir, "session.jsonl")))
	Expect(log).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString(image)))
	part, err := json.Marshal(llm.Attach("image", "image/png", "", image))
	Expect(err).NotTo(HaveOccurred())
	Expect(log).To(ContainSubstring(`{"role":"user","content":[` + string(part) + `,{"type":"text","text":"What is in the picture?"}]}`))
	Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("  user: What is in the picture?\n    image: image/png 14 bytes sha256:"),
		"the transcript shows the image")
}

var _ = Describe("an image an agent sends", func() {
	It("reaches the live model through the wire as openai-go sent it, is recorded as a digest, and a replay with another image is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model, dir := recordVisionChat(ctx, "custom/vision", visionChat(redPixel))
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["messages"]).To(Equal([]any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(redPixel), "detail": "high"}},
			map[string]any{"type": "text", "text": "What is in the picture?"},
		}}}))
		model.mu.Unlock()
		expectDigestOnly(dir, redPixel)

		Expect(mediaReplay(ctx, dir, visionChat(redPixel))).To(harness.MatchRecording())
		o := mediaReplay(ctx, dir, visionChat(bluePixel))
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(MatchRegexp(`^root \(root session\), model call 1 \(turn 1 step 1\): the conversation sent differs from message 1 on \(1 messages recorded, 1 now\); ` +
			`message 1's image changed: \[image image/png 14 bytes sha256:[0-9a-f]{12}…\] recorded, \[image image/png 14 bytes sha256:[0-9a-f]{12}…\] now$`))
	})

	It("reaches aimock, an independent server, as openai-go sent it: its journal holds the image", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		// aimock's journal keeps a Chat Completions body as sent; an
		// Anthropic one it keeps converted to chat messages, without the
		// image, so the Messages specs capture the body themselves.
		srv := startAimock(ctx, `{"fixtures": [{"match": {"userMessage": "What is in the picture?"}, "response": {"content": "A red pixel."}}]}`)
		dir := newFixture("custom/vision", visionScenario, `{"sessions":{"root":[{"text":"x"}]}}`)
		drv, err := llmopenai.New(llmopenai.Config{BaseURL: srv.URL + "/v1", APIKey: "aimock-test-key"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gpt-4o")
		opts.Runtime = visionChat(redPixel)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.Get(srv.URL + "/__aimock/journal")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var journal []struct {
			Body struct{ Messages []map[string]any }
		}
		Expect(json.NewDecoder(resp.Body).Decode(&journal)).To(Succeed())
		Expect(journal).To(HaveLen(1))
		Expect(journal[0].Body.Messages).To(HaveLen(1))
		Expect(journal[0].Body.Messages[0]["content"]).To(ContainElement(HaveKeyWithValue("image_url",
			HaveKeyWithValue("url", "data:image/png;base64,"+base64.StdEncoding.EncodeToString(redPixel)))))
		expectDigestOnly(dir, redPixel)
		Expect(mediaReplay(ctx, dir, visionChat(redPixel))).To(harness.MatchRecording())
	})

	It("reaches the live model through the wire as anthropic-sdk-go sent it, is recorded as a digest, and a replay with another image is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "A red pixel." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/vision", visionScenario, `{"sessions":{"root":[{"text":"x"}]}}`)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = visionClaude(redPixel)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["messages"]).To(Equal([]any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(redPixel)}},
			map[string]any{"type": "text", "text": "What is in the picture?"},
		}}}))
		model.mu.Unlock()
		expectDigestOnly(dir, redPixel)

		Expect(mediaReplay(ctx, dir, visionClaude(redPixel))).To(harness.MatchRecording())
		o := mediaReplay(ctx, dir, visionClaude(bluePixel))
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("message 1's image changed: [image image/png 14 bytes sha256:"))
	})

	It("reaches the live model through the wire as genai sent it, is recorded as a digest, and a replay with another image is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &geminiModelServer{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/vision", visionScenario, `{"sessions":{"root":[{"text":"x"}]}}`)
		drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gemini-2.5-flash")
		opts.Provider = gemini.API
		opts.Runtime = visionGenai(redPixel)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["contents"]).To(Equal([]any{map[string]any{"role": "user", "parts": []any{
			map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(redPixel)}},
			map[string]any{"text": "What is in the picture?"},
		}}}))
		model.mu.Unlock()
		expectDigestOnly(dir, redPixel)

		Expect(mediaReplay(ctx, dir, visionGenai(redPixel))).To(harness.MatchRecording())
		o := mediaReplay(ctx, dir, visionGenai(bluePixel))
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("message 1's image changed: [image image/png 14 bytes sha256:"))
	})

	It("reaches the live model through the wire as openai-go's Responses sent it, in every call of a previous_response_id chain, and a replay with another image is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &respModel{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/vision", `{"description": "a vision agent", "prompts": ["What is in the picture?", "And its color?"], "agent": {}}`,
			`{"sessions":{"root":[{"text":"x"},{"text":"y"}]}}`)
		drv, err := rs.New(rs.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gpt-4o")
		opts.Runtime = visionResponses(redPixel)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		image := `{"type":"input_image","detail":"high","image_url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(redPixel) + `"}`
		bodies := model.requests()
		Expect(bodies).To(HaveLen(2))
		for _, body := range bodies {
			var input []map[string]json.RawMessage
			Expect(json.Unmarshal(body["input"], &input)).To(Succeed())
			Expect(string(input[0]["content"])).To(MatchJSON(`[` + image + `,{"type":"input_text","text":"What is in the picture?"}]`))
		}
		expectDigestOnly(dir, redPixel)

		Expect(mediaReplay(ctx, dir, visionResponses(redPixel))).To(harness.MatchRecording())
		o := mediaReplay(ctx, dir, visionResponses(bluePixel))
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("model call 1 (turn 1 step 1): the conversation sent differs from message 1 on (1 messages recorded, 1 now); message 1's image changed: [image image/png 14 bytes sha256:"))
	})

	It("in a tool's result is recorded in the tool/result where the agent sent it, not as a rewritten history", func(ctx SpecContext) {
		dir := newFixture("custom/vision", `{"description": "an agent that looks", "prompts": ["What is on the screen?"], "agent": {}}`,
			`{"sessions":{"root":[{"toolCalls":[{"id":"toolu_s","name":"screenshot","arguments":{}}]},{"text":"A red pixel."}]}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = screenshotClaude(redPixel)
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		part, err := json.Marshal(llm.Attach("image", "image/png", "", redPixel))
		Expect(err).NotTo(HaveOccurred())
		log := string(mustRead(filepath.Join(dir, "session.jsonl")))
		Expect(log).To(ContainSubstring(`"type":"tool/result"`))
		Expect(log).To(ContainSubstring(`{"type":"tool-result","toolCallId":"toolu_s","name":"screenshot","content":[{"type":"text","text":"the screen:"},` + string(part) + `],"isError":false}`))
		Expect(log).NotTo(ContainSubstring("history/replace"))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("result toolu_s: the screen:\n      image: image/png 14 bytes sha256:"))

		Expect(mediaReplay(ctx, dir, screenshotClaude(redPixel))).To(harness.MatchRecording())
	})

	It("swapped in an earlier message is recorded where it was swapped, as the history the agent rewrote", func(ctx SpecContext) {
		dir := newFixture("custom/vision", `{"description": "a vision agent", "prompts": ["What is in the picture?", "And now?"], "agent": {}}`,
			`{"sessions":{"root":[{"text":"Red."},{"text":"Blue."}]}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = swappingChat()
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		blue, err := json.Marshal(llm.Attach("image", "image/png", "", bluePixel))
		Expect(err).NotTo(HaveOccurred())
		log := string(mustRead(filepath.Join(dir, "session.jsonl")))
		Expect(log).To(MatchRegexp(`"type":"history/replace".*"keep":0,"messages":\[\{"role":"user","content":\[` + regexp.QuoteMeta(string(blue))))
		Expect(mediaReplay(ctx, dir, swappingChat())).To(harness.MatchRecording())
	})

	DescribeTable("in an API or a place agentsnap does not record it yet is refused with the API's error, naming the request, where and what, never dropped",
		func(post func(url string) (int, string), want string) {
			drv := &capture{next: sayDriver}
			_, _, url := serveWire(drv)
			code, body := post(url)
			Expect(code).To(Equal(http.StatusBadRequest))
			Expect(body).To(ContainSubstring(want))
			Expect(body).To(ContainSubstring("agentsnap does not record it yet"))
			drv.mu.Lock()
			defer drv.mu.Unlock()
			Expect(drv.reqs).To(BeEmpty(), "no model call")
		},
		Entry("Responses: an image in the system prompt", func(url string) (int, string) {
			return postResp(url, respReq(`"input":[{"role":"developer","content":[{"type":"input_image","image_url":"https://example.com/a.png"}]},{"role":"user","content":"hi"}]`), nil)
		}, `wire: POST /v1/responses: input[0]: content[0]: a \"input_image\" part`),
		Entry("Chat Completions: audio in a tool's result", func(url string) (int, string) {
			return post(url, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c","content":[{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}}]}]}`, nil)
		}, `wire: POST /v1/chat/completions: messages[1].content[0] (in a tool message): a \"input_audio\" part`),
	)
})
