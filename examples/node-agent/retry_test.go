package nodeagent_test

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// rateLimited is the fixture whose first model call failed with a 429.
var rateLimited = filepath.Join("fixtures", "errors", "rate-limited")

// noBackoffMs bounds the time the SDK may wait between a replayed failure
// and its retry. The openai package's own back-off before a first retry is
// 0.5 s less at most a quarter of jitter: at least 375 ms. Without it the
// retry leaves within 60 ms of the failure, and was seen at 100-200 ms on
// a 2-CPU machine under a load average of 9: the bound sits between.
const noBackoffMs = 250

var _ = Describe("a failure agentsnap serve replays to the openai npm package", Label("node"), func() {
	BeforeEach(kit.Require)

	It("is retried by the SDK as while recording, at once, and the replay matches", func(ctx SpecContext) {
		By("recording from the playbook: the SDK retries the 429; the fixture again, byte for byte")
		dir := nodetest.CopyFixture(rateLimited, scenario.File, fixture.PlaybookFile)
		attempts := nodetest.LogAttempts()
		code, verdict := kit.Run(ctx, nodetest.Environ([]string{"CI"}), dir, dir, "--record") // serve --record refuses under CI
		Expect(code).To(Equal(0), verdict)
		recorded := attempts("")
		Expect(nodetest.Statuses(recorded)).To(Equal([]int{429, 200, 200}), "the failed call, the SDK's retry, the step after the tool: %+v", recorded)
		for _, name := range []string{scenario.File, fixture.RootLog, fixture.GoldenFile} {
			want, err := os.ReadFile(filepath.Join(rateLimited, name))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%s differs from the committed fixture", name)
		}
		golden, err := os.ReadFile(filepath.Join(rateLimited, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(ContainSubstring("model call failed (attempt 1): RATE_LIMIT"))

		By("replaying the fixture: the same attempts, the retry without the SDK's back-off")
		attempts = nodetest.LogAttempts()
		code, verdict = kit.Run(ctx, nil, rateLimited, rateLimited)
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(MatchRegexp(`^%s: replay matches the recording \(1 session, 3 model calls\)\n$`, regexp.QuoteMeta(harness.Name(rateLimited))))
		replayed := attempts("")
		Expect(nodetest.Statuses(replayed)).To(Equal(nodetest.Statuses(recorded)), "the SDK retries as it did while recording: %+v", replayed)
		failed, retry := replayed[0], replayed[1]
		Expect([]string{failed.Session, retry.Session}).To(Equal([]string{"root", "root"}), "the retry is the root's, as the failure")
		waited := retry.Start - failed.End
		GinkgoWriter.Printf("the SDK retried %d ms after the failure\n", waited)
		Expect(waited).To(BeNumerically("<", noBackoffMs), "the SDK waited %d ms before its retry: it backed off", waited)
	})
})
