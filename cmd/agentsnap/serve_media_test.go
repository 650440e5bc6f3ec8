package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// askAboutImage sends, as an agent on openai-go, "Reply OK." after image
// to serve at url.
func askAboutImage(ctx context.Context, url string, image []byte) error {
	client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-agent-0123456789"), option.WithMaxRetries(0))
	_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(image)}),
			openai.TextContentPart("Reply OK."),
		})}})
	return err
}

var _ = Describe("agentsnap serve, an agent that sends an image", func() {
	It("records it from the live model, which gets the image, as a digest, and replays it: the same image passes, another is drift", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, okAimock)
		red, blue := []byte("\x89PNG red pixel"), []byte("\x89PNG blu pixel")

		dir := filepath.Join(GinkgoT().TempDir(), "custom", "vision")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
		s := startServe(map[string]string{"AGENTSNAP_API_KEY": "aimock-key-0123456789"}, "serve", dir, "--record", "--live", "--base-url", srv.URL+"/v1", "--model", "m-1")
		Expect(askAboutImage(ctx, s.url, red)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)

		// aimock's journal keeps a Chat Completions body as it came.
		resp, err := http.Get(srv.URL + "/__aimock/journal")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var journal []struct {
			Body struct{ Messages []map[string]any }
		}
		Expect(json.NewDecoder(resp.Body).Decode(&journal)).To(Succeed())
		Expect(journal).To(HaveLen(1))
		Expect(journal[0].Body.Messages[0]["content"]).To(ContainElement(HaveKeyWithValue("image_url",
			HaveKeyWithValue("url", "data:image/png;base64,"+base64.StdEncoding.EncodeToString(red)))))
		log := readFile(filepath.Join(dir, fixture.RootLog))
		Expect(log).To(ContainSubstring(`{"type":"image","attachment":{"attachmentId":"sha256:`))
		Expect(log).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString(red)))

		s = startServe(nil, "serve", dir)
		Expect(askAboutImage(ctx, s.url, red)).To(Succeed())
		code, out, stderr = s.stop()
		Expect(code).To(Equal(0), out+stderr)

		s = startServe(nil, "serve", dir)
		_ = askAboutImage(ctx, s.url, blue) // what it gets back is the replay's business
		code, out, _ = s.stop()
		Expect(code).To(Equal(1))
		Expect(out).To(MatchRegexp(`request drift: .*message 1's image changed: \[image image/png 14 bytes sha256:[0-9a-f]{12}…\] recorded, \[image image/png 14 bytes sha256:[0-9a-f]{12}…\] now`))
	})
})
