package errors_test

import (
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
)

// What a scenario in errors/ must hold is judge.CategoryRules, checked by
// MatchRecording here exactly as agentsnap check checks it.
var _ = Describe("errors scenarios", Label("errors"), func() {
	DescribeTable("replay to their recording and golden, and hold what the category requires",
		func(dir string) { suitekit.Replay(dir) },
		suitekit.Entries("errors"),
	)
})
