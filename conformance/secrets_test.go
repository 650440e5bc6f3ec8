package conformance_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// errorTB keeps what a test would print.
type errorTB struct {
	testing.TB
	mu  sync.Mutex
	out []string
}

func (c *errorTB) Helper() {}
func (c *errorTB) Error(args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, fmt.Sprint(args...))
}
func (c *errorTB) Logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, fmt.Sprintf(format, args...))
}

var _ = Describe("the conformance kit and the keys of the shell it runs in", Label("secrets"), func() {
	// What a developer's shell holds; a runtime whose tool or message
	// echoes it must not print it into CI's log or leave it on disk.
	const key = "sk-kit-shell-key-0123456789abcdef"

	// saying appends text to every answer the runtime stores.
	saying := func(text string, replayOnly bool) mutation {
		return mutation{replayOnly: replayOnly, events: each(session.TypeAssistantMessage, func(e *session.Event) {
			d := decodeTo[session.AssistantMessageData](e)
			d.Message.Content = append(d.Message.Content, session.TextPart(text))
			e.Data = encode(d)
		})}
	}

	BeforeEach(func() {
		for _, v := range secret.KeyVars {
			GinkgoT().Setenv(v, "")
		}
		GinkgoT().Setenv(secret.NamesVar, "")
		GinkgoT().Setenv("OPENAI_API_KEY", key)
	})

	It("shows it as [REDACTED] in the violations of a replay that writes it, and in what Run prints", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.New = broken(saying(" The key is "+key+".", true))
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(rules(res.Violations)).To(ConsistOf("replay-matches", "golden-matches"))
		msg := res.Err().Error()
		Expect(msg).To(ContainSubstring("The key is " + secret.Redacted))
		Expect(msg).NotTo(ContainSubstring(key))

		t := &errorTB{TB: GinkgoTB()}
		conformance.Run(t, cfg)
		Expect(strings.Join(t.out, "\n")).To(ContainSubstring("The key is " + secret.Redacted))
		Expect(strings.Join(t.out, "\n")).NotTo(ContainSubstring(key))
	})

	It("refuses a recording that holds it, naming the variable, and leaves it in no file of the kit's folder", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.New = broken(saying(" The key is "+key+".", false))
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		msg := res.Err().Error()
		Expect(msg).To(ContainSubstring("refusing to save: a secret appears in the recording: the value of OPENAI_API_KEY appears in "))
		Expect(msg).NotTo(ContainSubstring("delete them by hand"), "the kit's own store is no side store of the user's")
		Expect(msg).To(ContainSubstring("fix: keep the keys of the shell the kit runs in out of what the runtime writes"))
		traces, err := leaktest.Traces(key, []string{res.Dir}, msg)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the kit's error:\n%s", msg)
	})
})
