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

// A golden diff quotes the replayed transcript: a user's test prints the
// comparison's message itself, and the harness's assertions on an outcome
// whose test already ended (shared across subtests) no longer know the
// replay's secrets; the message keeps them out as Report does.
var _ = Describe("the golden comparison of a replay whose context carries secrets", Label("secrets"), func() {
	const key = "sk-shell-key-0123456789abcdefXYZ"

	It("shows a key the agent wrote into a message as [REDACTED] in the diff", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Prompts[0] += " The key is " + key + "."
		set := secret.New()
		set.Add("OPENAI_API_KEY", key)
		ctx := secret.NewContext(context.Background(), set)

		o, err := judge.Replay(ctx, fx, judge.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Transcript).To(ContainSubstring(key), "the replayed transcript holds the key: this spec checks nothing")
		g := judge.DiffGolden(o)
		Expect(g.Message).To(ContainSubstring("The key is " + secret.Redacted))
		Expect(g.Message).NotTo(ContainSubstring(key))
	})
})
