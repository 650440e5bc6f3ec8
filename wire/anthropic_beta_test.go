package wire_test

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// aimockJournal returns the headers of every request aimock served
// (GET /__aimock/journal), in order.
func aimockJournal(origin string) []map[string]string {
	GinkgoHelper()
	resp, err := http.Get(origin + "/__aimock/journal")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var entries []struct{ Headers map[string]string }
	Expect(json.NewDecoder(resp.Body).Decode(&entries)).To(Succeed())
	out := make([]map[string]string, len(entries))
	for i, e := range entries {
		out[i] = e.Headers
	}
	return out
}

var _ = Describe("a live recording of an agent that asks for betas", func() {
	It("sends each call's anthropic-beta headers on to aimock through the SDK, records none, and replays without them: they are not drift", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, claudeAimock)
		dir := newFixture("mixed/claude", claudeScenario, claudePlaybook)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "aimock-test-key-0123",
			Header: http.Header{"X-Aimock-Strict": {"true"}}})
		Expect(err).NotTo(HaveOccurred())
		betas := []string{"interleaved-thinking-2025-05-14", "token-efficient-tools-2025-02-19"}
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = claudeRuntimeWith(func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048; a.Betas = betas })
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		journal := aimockJournal(srv.URL)
		Expect(journal).To(HaveLen(6), "every call of the tree")
		for _, h := range journal {
			Expect(h).To(HaveKeyWithValue("anthropic-beta", "interleaved-thinking-2025-05-14, token-efficient-tools-2025-02-19"))
		}

		Expect(string(mustRead(dir + "/session.jsonl"))).NotTo(ContainSubstring("2025-05-14"))
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: claudeRuntimeWith(func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048 })})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})
