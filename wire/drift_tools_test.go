package wire_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A tool of an SDK agent (Chat Completions) whose description changed is
// named by the drift, from the digest per tool the request headers hold.
var _ = Describe("drift in a tool an SDK agent offers", func() {
	described := func(description string) func(*sdkagent.Agent) {
		return func(a *sdkagent.Agent) {
			l := lookup
			l.Description = description
			a.Tools = []sdkagent.Tool{l}
		}
	}
	replay := func(dir string, change func(*sdkagent.Agent)) *judge.Outcome {
		GinkgoHelper()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntimeWith(change)})
		Expect(err).NotTo(HaveOccurred())
		return o
	}
	edited := described("Look a fact up by its key.")

	It("names the tool whose description changed", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		Expect(replay(dir, described(lookup.Description))).To(harness.MatchRecording())
		o := replay(dir, edited)
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal(`root (root session), model call 1 (turn 1 step 1): tool "lookup" changed (its description or parameters)`))
	})

	It("replays a fixture recorded before headers held each tool's digest, and still finds the drift", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		digests := regexp.MustCompile(`,"toolDigests":\[[^]]*\]`)
		for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl"} {
			path := filepath.Join(dir, name)
			b := mustRead(path)
			Expect(digests.Match(b)).To(BeTrue(), "%s holds the digests to take out", name)
			Expect(os.WriteFile(path, digests.ReplaceAll(b, nil), 0o644)).To(Succeed())
		}
		Expect(replay(dir, func(*sdkagent.Agent) {})).To(harness.MatchRecording())

		o := replay(dir, edited)
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): a tool's description or parameters changed"))

		o = replay(dir, func(a *sdkagent.Agent) { a.Tools = nil })
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the tools changed (added: none; removed: lookup)"))
	})
})
