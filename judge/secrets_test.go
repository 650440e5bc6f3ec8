package judge_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap"
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

	// leakyAt loads fork/codeword with the key in its first prompt,
	// starting at byte at of it (or right after the prompt's text), and a
	// context whose set holds it: the agent sends the key.
	leakyAt := func(at int) (context.Context, *fixture.Fixture) {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		add := " The key is "
		if pad := at - len(fx.Scenario.Prompts[0]) - len(add); pad > 0 {
			add = strings.Repeat(" ", pad) + add
		}
		fx.Scenario.Prompts[0] += add + key + "."
		set := secret.New()
		set.Add("OPENAI_API_KEY", key)
		return secret.NewContext(context.Background(), set), fx
	}
	leaky := func() (context.Context, *fixture.Fixture) { return leakyAt(0) }

	// replay replays the leaky fixture.
	replay := func() *judge.Outcome {
		ctx, fx := leaky()
		o, err := judge.Replay(ctx, fx, judge.Options{Runtime: agent.Reference})
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

	It("shows a key that a difference cuts short as [REDACTED]…, not its first bytes", func() {
		// The drift and the log difference show a message's first 160
		// runes: a key after 140 of them is cut in the middle.
		ctx, fx := leakyAt(140)
		o, err := judge.Replay(ctx, fx, judge.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Differences).NotTo(BeEmpty())
		Expect(o.Differences[0].Replay).To(ContainSubstring(key[:secret.MinCut]), "the difference holds the key's start: this spec checks nothing")
		Expect(o.Differences[0].Replay).NotTo(ContainSubstring(key), "the difference cuts the key: this spec checks nothing")
		for _, text := range []string{o.Report(), o.Err().Error()} {
			Expect(text).To(ContainSubstring("The key is " + secret.Redacted + secret.Cut))
			Expect(text).NotTo(ContainSubstring(key[:secret.MinCut]))
		}
	})

	It("shows it as [REDACTED] in the golden diff", func() {
		g := judge.DiffGolden(replay())
		Expect(g.Message).To(ContainSubstring("The key is " + secret.Redacted))
		Expect(g.Message).NotTo(ContainSubstring(key))
	})

	It("shows it as [REDACTED] in a schedule search's Report and Err, under the schedule that does not match", func() {
		ctx, fx := leaky()
		r, err := judge.SearchSchedules(ctx, fx, judge.Options{Runtime: agent.Reference}, 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Unmatched).To(Equal(0))
		Expect(r.Mismatch.Drift).NotTo(BeNil(), "the agent sends the key: this spec checks nothing")
		Expect(r.Mismatch.Drift.String()).To(ContainSubstring(key), "Drift is the raw value; Report is the redacted view")
		for _, text := range []string{r.Report(), r.Err().Error()} {
			Expect(text).To(ContainSubstring("does not match the recording"))
			Expect(text).To(ContainSubstring("The key is " + secret.Redacted))
			Expect(text).NotTo(ContainSubstring(key))
		}
	})

	It("shows it as [REDACTED] where two schedules wrote different logs", func() {
		ctx, fx := leaky()
		// Each run says which it is after the key: the schedules' logs
		// differ first in the message that holds it.
		var runs atomic.Int64
		rt := agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			e, sc := *env, *env.Scenario
			sc.Prompts = slices.Clone(sc.Prompts)
			sc.Prompts[0] += fmt.Sprintf(" This is run %d.", runs.Add(1))
			e.Scenario = &sc
			return agent.Reference.Run(ctx, &e)
		})
		r, err := judge.SearchSchedules(ctx, fx, judge.Options{Runtime: rt}, 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Diverged).To(Equal(1))
		Expect(r.Difference.Golden+r.Difference.Replay).To(ContainSubstring(key), "the difference quotes the key: this spec checks nothing")
		for _, text := range []string{r.Report(), r.Err().Error()} {
			Expect(text).To(ContainSubstring("wrote different logs"))
			Expect(text).To(ContainSubstring("The key is " + secret.Redacted + ". This is run 2."))
			Expect(text).NotTo(ContainSubstring(key))
		}
	})
})
