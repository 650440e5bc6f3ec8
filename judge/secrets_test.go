package judge_test

import (
	"context"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A user's test prints Outcome.Report or Err itself, not through the
// harness's assertions: what it prints keeps the replay's secrets out too.
var _ = Describe("the report of a replay whose context carries secrets", Label("secrets"), func() {
	const key = "sk-shell-key-0123456789abcdefXYZ"

	It("shows a key the agent wrote into a message as [REDACTED] in Report and Err", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Prompts[0] += " The key is " + key + "."
		set := secret.New()
		set.Add("OPENAI_API_KEY", key)
		ctx := secret.NewContext(context.Background(), set)

		o, err := judge.Replay(ctx, fx, judge.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Drift).NotTo(BeNil(), "the agent sends the key: this spec checks nothing")
		for _, text := range []string{o.Report(), o.Err().Error()} {
			Expect(text).To(ContainSubstring("The key is " + secret.Redacted))
			Expect(text).NotTo(ContainSubstring(key))
		}
	})
})
