package wire_test

import (
	"net/http/httptest"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const fiveTurns = `{"description": "five questions", "prompts": ["One?", "Two?", "Three?", "Four?", "Five?"], "agent": {"system": "You are terse."}}`

var _ = Describe("an agent that moves its prompt cache breakpoint to the newest message on every call", func() {
	// counted is the SDK agent with change, its requests read by a
	// Messages format that counts them, and the count.
	counted := func(change func(*claudeAgent)) (runtime agentsnap.Runtime, count func() (int64, int64)) {
		f, count := wire.CountingAnthropic()
		return claudeRuntimeWith(change, func(c *wire.Config) { c.Formats = []wire.Format{f} }), count
	}
	moving := func(a *claudeAgent) { a.Cache = true }

	It("has every request but its first read against the last one, live and replayed, each breakpoint still reaching the live model where the agent put it", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "Noted." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		dir := newFixture("custom/moving", fiveTurns, `{"sessions":{"root":[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"},{"text":"e"}]}}`)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		rt, count := counted(moving)
		opts := liveClaude(drv, srv.URL)
		opts.Runtime = rt
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		read, reused := count()
		Expect([]int64{read, reused}).To(Equal([]int64{5, 4}), "requests read, and read against the last one")
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(5))
		for i, body := range model.bodies {
			Expect(cacheMarks(body)).To(Equal(agentsMarks(body)), "call %d", i+1)
		}
		model.mu.Unlock()

		rt, count = counted(moving)
		Expect(replayClaude(dir, harness.Options{Runtime: rt})).To(harness.MatchRecording())
		read, reused = count()
		Expect([]int64{read, reused}).To(Equal([]int64{5, 4}), "replayed: requests read, and read against the last one")
	})

	It("has as many requests read against the last one in a tree of sessions as an agent that sets no breakpoint", func() {
		reads := map[bool][]int64{}
		for _, cache := range []bool{false, true} {
			change := func(a *claudeAgent) { a.Cache = cache }
			dir := recordClaude(claudeRuntimeWith(change))
			rt, count := counted(change)
			o := replayClaude(dir, harness.Options{Runtime: rt})
			Expect(o).To(harness.MatchRecording())
			read, reused := count()
			Expect(reused).To(Equal(read-int64(len(o.Replayed))), "every request but each session's first read against the last one")
			reads[cache] = []int64{read, reused}
		}
		Expect(reads[true]).To(Equal(reads[false]))
	})
})
