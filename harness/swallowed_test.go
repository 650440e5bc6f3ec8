package harness_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// swallowing is the reference runtime followed by one more model call, as
// session ref, whose error it swallows: a runtime that logs a failed call
// nowhere (a retry loop that gives up quietly, a background summary).
// Every log it writes is the recording's.
func swallowing(ref llm.SessionRef, made *error) agentsnap.Runtime {
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		if err := agent.Reference.Run(ctx, env); err != nil {
			return err
		}
		_, *made = env.Driver.Stream(ctx, &llm.Request{Session: ref, Turn: 1, Step: 1, Attempt: 1})
		return nil
	})
}

var _ = Describe("a model call the replay driver could not serve, swallowed by the runtime", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	DescribeTable("fails the replay on the consumption check alone, and feeds no -update",
		func(ref llm.SessionRef, refused error, named string) {
			dir := copyFixture("spawn/one-child")
			golden := filepath.Join(dir, fixture.GoldenFile)
			// A golden that an update from this replay would rewrite.
			stale := []byte("an outdated transcript\n")
			Expect(os.WriteFile(golden, stale, 0o644)).To(Succeed())

			var made error
			o := replayWith(dir, swallowing(ref, &made))
			Expect(made).To(MatchError(refused), "the spec's premise: the driver refused the call")
			Expect(o.RunErrors).To(BeEmpty(), "the spec's premise: the runtime swallowed it")
			Expect(o.Differences).To(BeEmpty(), "the spec's premise: every log is the recording's")
			Expect(o.Drift).To(BeNil())

			Expect(o.Consumption).To(MatchError(refused))
			Expect(o.Passed()).To(BeFalse())
			Expect(o.Err()).To(MatchError(judge.ErrMismatch))
			ok, err := harness.MatchRecording().Match(o)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse(), "MatchRecording passes a replay whose driver refused a call")
			Expect(o.Report()).To(ContainSubstring("replay driver:"))
			Expect(o.Report()).To(ContainSubstring(named))

			res := judge.UpdateGolden(o)
			Expect(res.Updated).To(BeFalse())
			Expect(res.Message).To(ContainSubstring("not updating " + golden + ": the replay itself fails"))
			Expect(os.ReadFile(golden)).To(Equal(stale))
		},
		Entry("a session the recording does not have", llm.SessionRef{ID: "root/call_ghost", ParentID: "root", ParentCallID: "call_ghost", Mode: "spawn", Depth: 1},
			fakellm.ErrUnrecordedSession, "call_ghost"),
		Entry("a call past the root's recorded ones", llm.SessionRef{ID: "root"},
			fakellm.ErrScriptExhausted, "root"),
	)
})
