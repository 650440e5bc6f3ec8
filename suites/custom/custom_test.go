package custom_test

import (
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
)

// Every category folder no built-in suite names (billing/, say) is replayed
// here with the checks every scenario gets: no Go file to write.
var _ = Describe("scenarios of other categories", func() {
	entries := suitekit.OtherEntries()
	if len(entries) == 0 {
		It("has none: every fixture is in a built-in category", func() {})
		return
	}
	DescribeTable("replay to their recording and golden",
		func(dir string) { suitekit.Replay(dir) },
		entries,
	)
})
