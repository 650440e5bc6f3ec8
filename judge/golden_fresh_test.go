package judge_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// With Hints.Fresh (the conformance kit's) the fixture was recorded
// moments ago by the runtime that replays it: a golden that differs is the
// runtime's doing, so the message ends with Fresh, not with an update, a
// review or a re-recording.
var _ = Describe("comparing with a golden under Hints.Fresh", func() {
	const fresh = "look at the runtime"
	replayed := func(edit func(golden string)) *judge.Outcome {
		GinkgoHelper()
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "spawn", "one-child")))).To(Succeed())
		edit(filepath.Join(dir, fixture.GoldenFile))
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference, Hints: judge.Hints{Fresh: fresh}})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeTrue(), "the spec's premise: the replay matches its recording")
		return o
	}
	noCommand := func(msg string) {
		GinkgoHelper()
		for _, s := range []string{"go tool agentsnap", "update", "review", "re-record", "proposal"} {
			Expect(msg).NotTo(ContainSubstring(s), msg)
		}
	}

	It("ends a golden that differs with Fresh", func() {
		o := replayed(func(golden string) {
			Expect(os.WriteFile(golden, []byte("== root ==\nsomething else\n"), 0o644)).To(Succeed())
		})
		res := judge.CompareGolden(o)
		Expect(res.Message).To(HavePrefix(o.Fixture.Name + ": the transcript differs from " + o.Fixture.Golden + "\n[diff -golden +replay]"))
		Expect(res.Message).To(HaveSuffix("\n" + fresh))
		noCommand(res.Message)
	})

	It("ends a missing golden with Fresh", func() {
		o := replayed(func(golden string) { Expect(os.Remove(golden)).To(Succeed()) })
		res := judge.CompareGolden(o)
		Expect(res.Message).To(Equal(o.Fixture.Name + ": " + o.Fixture.Golden + " is missing, though it was recorded moments ago; " + fresh))
		noCommand(res.Message)
	})

	It("says nothing of a golden that matches", func() {
		o := replayed(func(string) {})
		Expect(judge.CompareGolden(o).Message).To(BeEmpty())
	})
})
