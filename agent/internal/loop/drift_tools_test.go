package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// describedRuntime is the reference loop with the recorded counter tool
// described as description, beside the fork tool.
func describedRuntime(description string) agentsnap.Runtime {
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		var counter atomic.Int64
		tick := &loop.FuncTool{
			Name: "tick", Description: description, Record: true,
			Parameters: `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			Fn: func(context.Context, json.RawMessage) (string, error) {
				return strconv.FormatInt(counter.Add(1), 10), nil
			},
		}
		rt, err := loop.New(loop.Config{
			Driver: env.Driver, Store: env.Store, Provider: env.Provider, Model: env.Model,
			Clock: env.Clock, Cwd: env.Cwd, IDs: loop.LineageIDs("root"), ToolReplay: env.ToolReplay,
			System: "You are a test loop.", Tools: loop.NewRegistry(tick, loop.ForkTool()),
		})
		if err != nil {
			return err
		}
		s, err := rt.NewSession(ctx)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := s.Turn(ctx, prompt)
			return err
		})
	})
}

var _ = Describe("drift in a tool of the reference loop", func() {
	const recorded, edited = "Count one up and return the count.", "Count one up; return the new count."
	var dir string
	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "fork", "ticks")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(tickScenario), 0o644)).To(Succeed())
		_, err := recorder.Record(context.Background(), dir, recorder.Options{
			Runtime: describedRuntime(recorded), Driver: &answerDriver{answers: tickAnswers()},
			Provider: "scripted", Model: "m", By: "drift_tools_test",
			Clock: func() time.Time { return agentsnap.Epoch },
		})
		Expect(err).NotTo(HaveOccurred())
	})
	replay := func(description string) *judge.Outcome {
		GinkgoHelper()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: describedRuntime(description)})
		Expect(err).NotTo(HaveOccurred())
		return o
	}

	It("names the tool whose description changed, at the first call that offers it", func() {
		Expect(replay(recorded)).To(harness.MatchRecording())
		o := replay(edited)
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal(`root (root session), model call 1 (turn 1 step 1): tool "tick" changed (its description or parameters)`))
		Expect(o.Report()).To(ContainSubstring(`request drift: root (root session), model call 1 (turn 1 step 1): tool "tick" changed (its description or parameters)`))
	})

	It("replays a fixture recorded before headers held each tool's digest, and still finds the drift", func() {
		digests := regexp.MustCompile(`,"toolDigests":\[[^]]*\]`)
		for _, name := range []string{fixture.RootLog, fixture.ChildLog(1)} {
			path := filepath.Join(dir, name)
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(digests.Match(b)).To(BeTrue(), "%s holds the digests to take out", name)
			Expect(os.WriteFile(path, digests.ReplaceAll(b, nil), 0o644)).To(Succeed())
		}
		Expect(replay(recorded)).To(harness.MatchRecording())
		o := replay(edited)
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): a tool's description or parameters changed"))
	})
})
