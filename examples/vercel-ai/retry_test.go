package vercelai_test

import (
	"net/http"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// researchRetried is the fixture whose researcher's first model call, a
// whole one (generateText), failed with a 429.
var researchRetried = filepath.Join("fixtures", "errors", "research-retried")

// researcher is the session of its researcher.
const researcher = "root/call_research_24"

// noBackoffMs bounds the time the AI SDK may wait between a replayed
// failure and its retry. Its own back-off before a first retry is 2 s.
// Without it the retry leaves within 60 ms of the failure, and was seen at
// some 200 ms on a 2-CPU machine under a load average of 9.
const noBackoffMs = 250

var _ = Describe("a failure agentsnap serve replays to the AI SDK", Label("node"), func() {
	BeforeEach(kit.Require)

	It("of a whole call (generateText) is retried as while recording, at once, and the replay matches", func(ctx SpecContext) {
		By("recording from the playbook: the SDK retries the 429; the fixture again, byte for byte")
		dir := nodetest.CopyFixture(researchRetried, scenario.File, fixture.PlaybookFile)
		attempts := nodetest.LogAttempts()
		code, verdict := kit.Run(ctx, nodetest.Environ([]string{"CI"}), dir, dir, "--record") // serve --record refuses under CI
		Expect(code).To(Equal(0), verdict)
		recorded := attempts(researcher)
		Expect(nodetest.Statuses(recorded)).To(Equal([]int{http.StatusTooManyRequests, http.StatusOK, http.StatusOK}),
			"the failed call, the SDK's retry, the step after release_notes: %+v", recorded)
		for _, name := range []string{scenario.File, fixture.RootLog, "session.1.jsonl", fixture.GoldenFile} {
			want, err := os.ReadFile(filepath.Join(researchRetried, name))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%s differs from the committed fixture", name)
		}
		golden, err := os.ReadFile(filepath.Join(researchRetried, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(ContainSubstring("model call failed (attempt 1): RATE_LIMIT"))

		By("replaying the fixture: the same attempts, the retry without the SDK's back-off")
		attempts = nodetest.LogAttempts()
		code, verdict = kit.Run(ctx, nil, researchRetried, researchRetried)
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(MatchRegexp(verdictOK(researchRetried)))
		replayed := attempts(researcher)
		Expect(nodetest.Statuses(replayed)).To(Equal(nodetest.Statuses(recorded)), "the SDK retries as it did while recording: %+v", replayed)
		waited := replayed[1].Start - replayed[0].End
		GinkgoWriter.Printf("the AI SDK retried %d ms after the failure\n", waited)
		Expect(waited).To(BeNumerically("<", noBackoffMs), "the AI SDK waited %d ms before its retry: it backed off", waited)
	})
})
