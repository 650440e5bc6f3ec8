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

// A user's test prints Outcome.Report, Err or a golden comparison's
// message itself, not through the harness's assertions (and the harness's
// assertions on an outcome whose test already ended, shared across
// subtests, no longer know the replay's secrets): what they print keeps
// the replay's secrets out too.
var _ = Describe("a replay whose context carries secrets", Label("secrets"), func() {
	const key = "sk-shell-key-0123456789abcdefXYZ"

	// replay replays fork/codeword with the key in its first prompt and a
	// set holding it in the context: the agent sends the key.
	replay := func() *judge.Outcome {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Prompts[0] += " The key is " + key + "."
		set := secret.New()
		set.Add("OPENAI_API_KEY", key)
		o, err := judge.Replay(secret.NewContext(context.Background(), set), fx, judge.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Transcript).To(ContainSubstring(key), "the replayed transcript holds the key: this spec checks nothing")
		return o
	}

	It("shows a key the agent wrote into a message as [REDACTED] in Report and Err", func() {
		o := replay()
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Drift).NotTo(BeNil(), "the agent sends the key: this spec checks nothing")
		for _, text := range []string{o.Report(), o.Err().Error()} {
			Expect(text).To(ContainSubstring("The key is " + secret.Redacted))
			Expect(text).NotTo(ContainSubstring(key))
		}
	})

	It("shows it as [REDACTED] in the golden diff", func() {
		g := judge.DiffGolden(replay())
		Expect(g.Message).To(ContainSubstring("The key is " + secret.Redacted))
		Expect(g.Message).NotTo(ContainSubstring(key))
	})
})
