package harness_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestHarness(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "harness")
}

// inTest marks a judge.Replay called directly as a test's, the way
// harness.Run does, so the judge reads AGENTSNAP_SCHEDULES and
// AGENTSNAP_SCHEDULE_SEED.
var inTest = judge.Hints{Test: func(fx *fixture.Fixture, args string) string {
	return "go test -run " + fx.Name + " " + args
}}
