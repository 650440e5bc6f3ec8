package judge_test

import (
	"context"
	"fmt"
	"os"
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

// A golden is committed: an update or a proposal that would write a value
// of the replay's secret set is refused, naming the file, the line and
// the variable, never the value.
var _ = Describe("a golden whose replay holds a secret", Label("secrets"), func() {
	const word = "MARMALADE" // fork/codeword's codeword: in its recording and golden

	// replay replays a copy of fork/codeword, its golden a stale one, with
	// a context whose set holds the codeword as a key: the replay matches
	// its recording.
	replay := func() *judge.Outcome {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "fork", "codeword")))).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.GoldenFile), []byte("== root ==\n"), 0o644)).To(Succeed())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		set := secret.New()
		Expect(set.Add("PROJECT_API_KEY", word)).To(BeTrue())
		o, err := judge.Replay(secret.NewContext(context.Background(), set), fx, judge.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeTrue(), o.Report())
		return o
	}

	It("is not updated", func() {
		o := replay()
		res := judge.UpdateGolden(o)
		Expect(res.Updated).To(BeFalse())
		Expect(res.Message).To(And(ContainSubstring("not writing "+o.Fixture.Golden), ContainSubstring("line 3 of the replay's transcript holds the value of PROJECT_API_KEY"),
			ContainSubstring("re-record the scenario"), Not(ContainSubstring(word))))
		Expect(os.ReadFile(o.Fixture.Golden)).To(Equal([]byte("== root ==\n")), "the golden stays as it was")
		Expect(o.Transcript).To(ContainSubstring(word), "the transcript holds the word: this spec checks nothing")
	})

	It("gets no proposal", func() {
		o := replay()
		g := judge.CompareGolden(o)
		Expect(g.Message).To(And(ContainSubstring("no golden proposal written"), ContainSubstring("holds the value of PROJECT_API_KEY"), Not(ContainSubstring(word))))
		Expect(judge.ProposalPath(o.Fixture.Golden)).NotTo(BeAnExistingFile())
	})
})
