package wire_test

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/harness"
)

// presigned is an image URL as S3 hands one out: its query is the
// credential (whoever holds it reads the object until it expires).
const presigned = "https://bucket.s3.amazonaws.com/shots/a.png?X-Amz-Credential=AKIAEXAMPLEKEYID%2F20261206&X-Amz-Signature=5ecre7519nature0f64hexdigits"

// visionChatURL is visionChat with the image sent by its URL.
func visionChatURL(u string) agentsnap.Runtime {
	return visionChatImage(openai.ChatCompletionContentPartImageImageURLParam{URL: u})
}

var _ = Describe("an image an agent sends by a presigned URL", func() {
	It("reaches the live model whole, is recorded without its query (a digest in its place), and another signature is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model, dir := recordVisionChat(ctx, "custom/vision-url", visionChatURL(presigned))
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["messages"]).To(ContainElement(HaveKeyWithValue("content",
			ContainElement(HaveKeyWithValue("image_url", HaveKeyWithValue("url", presigned))))), "the live model gets the URL whole")
		model.mu.Unlock()

		ents, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			for _, secret := range []string{"5ecre7519nature", "AKIAEXAMPLEKEYID", "X-Amz"} {
				Expect(string(b)).NotTo(ContainSubstring(secret), "%s holds the URL's query", e.Name())
			}
		}
		Expect(string(mustRead(filepath.Join(dir, "session.jsonl")))).To(ContainSubstring(`"url":"https://bucket.s3.amazonaws.com/shots/a.png#sha256:`))

		Expect(mediaReplay(ctx, dir, visionChatURL(presigned))).To(harness.MatchRecording())
		o := mediaReplay(ctx, dir, visionChatURL(strings.Replace(presigned, "5ecre7", "0ther5", 1)))
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("message 1's image changed"))
	})
})
