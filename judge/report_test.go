package judge_test

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// The report of a failed replay hides nothing that failed it.
var _ = Describe("the report of a replay", func() {
	outcome := func() *judge.Outcome {
		return &judge.Outcome{Fixture: &fixture.Fixture{Name: "t/report", Dir: "t/report", Scenario: &scenario.Scenario{}}}
	}

	It("lists a run error the replay driver raised when no consumption check explains it", func() {
		o := outcome()
		o.RunErrors = []error{fmt.Errorf("runtime: model call: %w", fakellm.ErrScriptExhausted)}
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring("replay errors:\n  runtime: model call: "))
	})

	It("lists it once, under the driver's check, when that check explains it", func() {
		o := outcome()
		o.RunErrors = []error{fmt.Errorf("runtime: model call: %w", fakellm.ErrScriptExhausted), errors.New("runtime: store failed")}
		o.Consumption = errors.New("fakellm: root: 1 call past its script")
		report := o.Report()
		Expect(report).To(ContainSubstring("replay driver:\n  fakellm: root: 1 call past its script"))
		Expect(report).To(ContainSubstring("replay errors:\n  runtime: store failed\n"))
		Expect(report).NotTo(ContainSubstring("runtime: model call"))
	})

	It("counts the sessions and model calls of a passed replay in the singular for one", func() {
		o := outcome()
		o.Replayed, o.Calls = []*session.Log{{}}, 1
		Expect(o.Report()).To(Equal("t/report: replay matches the recording (1 session, 1 model call)"))
		o.Replayed, o.Calls = []*session.Log{{}, {}}, 3
		Expect(o.Report()).To(Equal("t/report: replay matches the recording (2 sessions, 3 model calls)"))
	})

	It("fails a replay whose recording is stale, saying so", func() {
		o := outcome()
		o.Stale = "playbook.json changed since the recording"
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Err()).To(MatchError(judge.ErrMismatch))
		Expect(o.Report()).To(ContainSubstring("stale recording:\n  playbook.json changed since the recording"))
	})
})

// A replay that fails only under other schedules is the agent's
// concurrency, not a stale recording; anything else wrong with it is.
var _ = Describe("the report of a replay that failed under other schedules", func() {
	outcome := func() *judge.Outcome {
		o := &judge.Outcome{Fixture: &fixture.Fixture{Name: "t/report", Dir: "t/report", Scenario: &scenario.Scenario{}}}
		o.RunErrors = []error{judge.ScheduleFailure("schedule 7 wrote other logs", true)}
		return o
	}

	It("says the recording is not at fault when that is all", func() {
		Expect(outcome().Report()).To(ContainSubstring("The recording is not at fault"))
	})

	DescribeTable("asks to re-record when the replay's own logs differ too",
		func(change func(o *judge.Outcome)) {
			o := outcome()
			change(o)
			report := o.Report()
			Expect(report).NotTo(ContainSubstring("The recording is not at fault"))
			Expect(report).To(ContainSubstring("re-record the scenario:"))
		},
		Entry("a log difference", func(o *judge.Outcome) {
			o.Differences = []judge.Difference{{Session: "root", Lineage: "root session", Seq: 0, Type: "x/note", Field: "data.s", Golden: `"a"`, Replay: `"b"`}}
		}),
		Entry("request drift", func(o *judge.Outcome) {
			o.Drift = &judge.Drift{Session: "root", Lineage: "root session", Call: 1, Turn: 1, Step: 1, Changes: []string{"the model changed"}}
		}),
		Entry("a stale recording", func(o *judge.Outcome) { o.Stale = "playbook.json changed since the recording" }),
		Entry("a category rule broken", func(o *judge.Outcome) { o.RuleViolations = []string{"no fork child"} }),
		Entry("the driver's check", func(o *judge.Outcome) { o.Consumption = errors.New("fakellm: root: never called") }),
	)
})
