package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
)

// A live re-recording costs every call; asking only from each session's
// first changed call costs the calls that changed. The report said only
// the first.
var _ = Describe("the report of a failed replay of a live recording", func() {
	outcome := func(provider, runtime string) *judge.Outcome {
		o := &judge.Outcome{Fixture: &fixture.Fixture{Name: "t/report", Dir: "t/report", Scenario: &scenario.Scenario{
			Recorded: &scenario.Recorded{Provider: provider, Model: "gpt-4o-mini", Runtime: runtime}}}}
		o.Stale = "the test's own reason"
		return o
	}

	It("names the re-recording of only what changed, in the CLI's form", func() {
		Expect(outcome("openai", "reference").Report()).To(MatchRegexp(`re-record the scenario:\n  .*agentsnap record \S*t/report --live --base-url URL --model gpt-4o-mini --api openai\n` +
			`or ask the live model only from each session's first changed call, the calls before it replayed from the recording:\n  .*agentsnap record \S*t/report --live --base-url URL --model gpt-4o-mini --api openai --only-changed\n$`))
	})

	It("in a test's form for a runtime of one's own", func() {
		Expect(outcome("openai", "desk").Report()).To(MatchRegexp(`\n  .*go test \./\.\.\. -record='\^t/report\$' -record-only-changed \(from the tests`))
	})

	It("not for a playbook's recording, whose answers cost nothing", func() {
		Expect(outcome("playbook", "reference").Report()).NotTo(ContainSubstring("only-changed"))
	})
})
