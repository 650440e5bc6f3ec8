package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"
)

// countingGemini is an agent on the genai SDK at serve's url that counts
// its call's tokens (client.Models.CountTokens) — with note, a user text
// it counts and does not send — before it makes the call. It returns the
// count and the answer's text.
func countingGemini(ctx context.Context, url, note string) (int64, string, error) {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "gemini-agent-key-0123456789", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimSuffix(url, "/v1")}})
	if err != nil {
		return 0, "", err
	}
	contents := []*genai.Content{genai.NewContentFromText("Reply OK.", genai.RoleUser)}
	counted := contents
	if note != "" {
		counted = append(counted[:1:1], genai.NewContentFromText(note, genai.RoleUser))
	}
	n, err := client.Models.CountTokens(ctx, "gemini-2.5-flash", counted, nil)
	if err != nil {
		return 0, "", err
	}
	answer, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents,
		&genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("You are terse.", genai.RoleUser)})
	if err != nil {
		return 0, "", err
	}
	return int64(n.TotalTokens), answer.Text(), nil
}

var _ = Describe("agentsnap serve, an agent on the genai SDK that counts tokens (models/{model}:countTokens)", func() {
	// record records the counting agent through serve --record --live
	// against aimock behind a proxy that answers countTokens itself
	// (aimock has no such endpoint), and returns the fixture, the count
	// and the headers of each count the live endpoint got.
	record := func(ctx context.Context) (string, int64, func() []http.Header) {
		return recordCounting(ctx, "gemini-count", func(path string) bool { return strings.HasSuffix(path, ":countTokens") }, `{"totalTokens":%d}`, countingGemini)
	}

	It("records the count from the live endpoint with --record --live, and a replay answers it from the recording", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, n, counted := record(ctx)
		Expect(n).To(BeNumerically(">", 0))
		Expect(counted()).To(HaveLen(1))
		Expect(counted()[0].Get("X-Goog-Api-Key")).To(Equal("aimock-key-0123456789"), "the recording's key, not the agent's")
		log := readFile(filepath.Join(dir, fixture.RootLog))
		Expect(log).To(ContainSubstring(`"api":"gemini","model":"gemini-2.5-flash","digest":`))
		Expect(log).To(ContainSubstring(fmt.Sprintf(`"inputTokens":%d}}`, n)))
		Expect(log).NotTo(Or(ContainSubstring("aimock-key-0123456789"), ContainSubstring("gemini-agent-key-0123456789")))

		s := startServe(nil, "serve", dir)
		again, text, err := countingGemini(ctx, s.url, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(n))
		Expect(text).To(Equal("OK from the model."))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(ContainSubstring("custom/gemini-count: replay matches the recording"))
		Expect(counted()).To(HaveLen(1), "a replay asks no live endpoint")
	})

	It("fails a replay in which the agent counts another request, naming the session and the request", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, _, _ := record(ctx)
		s := startServe(nil, "serve", dir)
		_, _, err := countingGemini(ctx, s.url, "Count this too.")
		Expect(err).To(MatchError(ContainSubstring("400")))
		code, out, stderr := s.stop()
		Expect(code).NotTo(Equal(0))
		Expect(out + stderr).To(And(ContainSubstring("token count drift: session root"), ContainSubstring("token count request 1 of the session (gemini, model gemini-2.5-flash, before its first turn)")))
	})

	It("records the count from the playbook with --record (paced), the input tokens the playbook reports for the call, and a replay answers it", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		GinkgoT().Setenv("CI", "") // the recording writes the fixture and its golden
		dir := filepath.Join(GinkgoT().TempDir(), "custom", "gemini-count")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [{"text": "OK from the playbook."}]}}`), 0o644)).To(Succeed())
		s := startServe(nil, "serve", dir, "--record", "--pace", "1ms")
		n, text, err := countingGemini(ctx, s.url, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(text).To(Equal("OK from the playbook."))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		log := readFile(filepath.Join(dir, fixture.RootLog))
		Expect(log).To(ContainSubstring(fmt.Sprintf(`"inputTokens":%d}}`, n)))
		Expect(n).To(BeNumerically(">", 0))

		s = startServe(nil, "serve", dir)
		again, _, err := countingGemini(ctx, s.url, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(n))
		code, out, stderr = s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(ContainSubstring("custom/gemini-count: replay matches the recording"))
	})
})

var _ = Describe("agentsnap serve --record --live, a token count the live endpoint fails and the agent never counts again", func() {
	// record records the counting Anthropic agent (its SDK retries
	// nothing) through serve against a live endpoint that refuses every
	// token count with a 401, which the live driver does not retry either:
	// the agent gets the failure and stops before its model call.
	record := func(ctx context.Context, flags ...string) (string, int, string, string) {
		GinkgoT().Setenv("CI", "") // the recording writes the fixture and its golden
		live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/messages/count_tokens" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
		}))
		DeferCleanup(live.Close)
		dir := filepath.Join(GinkgoT().TempDir(), "custom", "claude-count-failed")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."]}`), 0o644)).To(Succeed())
		args := append([]string{"serve", dir, "--record", "--live", "--api", "anthropic", "--base-url", live.URL, "--model", "m-1"}, flags...)
		s := startServe(map[string]string{"AGENTSNAP_API_KEY": "live-key-0123456789"}, args...)
		_, _, err := countingClaude(ctx, s.url, "")
		Expect(err).To(MatchError(ContainSubstring("401")), "the agent gets the live endpoint's failure")
		code, out, stderr := s.stop()
		return dir, code, out, stderr
	}

	It("fails the recording, naming the count, and leaves no fixture", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, code, out, stderr := record(ctx)
		Expect(code).NotTo(Equal(0), out+stderr)
		Expect(stderr).To(And(ContainSubstring("1 token count failed at "),
			MatchRegexp(`session \S+, the token count of the request with digest [0-9a-f]{12}, never counted again with success: AUTH: `),
			ContainSubstring("--keep-live-failures"), ContainSubstring("nothing was saved")))
		Expect(stderr).NotTo(ContainSubstring("live-key-0123456789"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})

	It("records the failed count with --keep-live-failures", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		dir, code, out, stderr := record(ctx, "--keep-live-failures")
		Expect(code).To(Equal(0), out+stderr)
		log := readFile(filepath.Join(dir, fixture.RootLog))
		Expect(log).To(And(ContainSubstring(`"type":"count/tokens"`), ContainSubstring(`"code":"AUTH","status":401}`)))
		Expect(log).NotTo(ContainSubstring("live-key-0123456789"))
	})
})
