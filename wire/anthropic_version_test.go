package wire_test

import (
	"net/http/httptest"
	"time"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the agent's anthropic-version header", func() {
	It("is not sent on to the live model, which gets the driver's (the version the driver reads the answer in), nor recorded, and a replay does not depend on it", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "Something." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/versioned", twoTurns, `{"sessions":{"root":[{"text":"x"},{"text":"y"}]}}`)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = claudeRuntimeWith(func(a *claudeAgent) { a.Version = "2099-01-01" })
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		model.mu.Lock()
		Expect(model.header).To(HaveLen(2))
		for _, h := range model.header {
			Expect(h.Values("Anthropic-Version")).To(Equal([]string{anthropic.Version}))
		}
		model.mu.Unlock()
		Expect(string(mustRead(dir + "/session.jsonl"))).NotTo(ContainSubstring("2099"))
		for _, version := range []string{"2099-01-01", ""} { // as recorded, and the SDK's own
			o := replayClaude(dir, harness.Options{Runtime: claudeRuntimeWith(func(a *claudeAgent) { a.Version = version })})
			Expect(o).To(harness.MatchRecording(), "version %q", version)
		}
	})
})
