package judge_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
)

// A transcript that differs in a replay that does not match its recording
// cannot be fixed with an update, which writes goldens only from a replay
// that matched: the message ends with the re-recording instead.
var _ = Describe("comparing with a golden when the replay does not match its recording", func() {
	failing := func(golden string) *judge.Outcome {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, fixture.GoldenFile)
		if golden != "" {
			Expect(os.WriteFile(path, []byte(golden), 0o644)).To(Succeed())
		}
		return &judge.Outcome{
			Fixture: &fixture.Fixture{Name: "t/drifted", Dir: dir, Golden: path, Scenario: &scenario.Scenario{
				Recorded: &scenario.Recorded{Provider: "playbook", Runtime: "my-agent"}}},
			Differences: []judge.Difference{{Session: "root", Lineage: "root session", Seq: 19, Type: "tool/result",
				Field: "data.text", Golden: `"old"`, Replay: `"new"`}},
			Transcript: "== root ==\nresult call_t: new\n",
		}
	}

	DescribeTable("names the re-recording, not an update that would refuse",
		func(golden string) {
			o := failing(golden)
			res := judge.CompareGolden(o)
			Expect(res.Message).NotTo(ContainSubstring("--update"), res.Message)
			Expect(res.Message).NotTo(ContainSubstring("update the golden with"), res.Message)
			Expect(res.Message).To(ContainSubstring("no golden proposal written: the replay itself does not match its recording"))
			Expect(res.Message).To(HaveSuffix("If the change is intended, re-record the scenario:\n  " + judge.RecordCommand(o)))
			Expect(o.Fixture.Golden + judge.ProposalSuffix).NotTo(BeAnExistingFile())
		},
		Entry("a golden that differs", "== root ==\nresult call_t: old\n"),
		Entry("a golden that is missing", ""),
	)
})
