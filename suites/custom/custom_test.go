package custom_test

import (
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
)

// Every category folder no built-in suite names (billing/, say) is replayed
// here with the checks every scenario gets: no Go file to write. With no
// such folder (or none in the shard) the table runs no spec.
var _ = Describe("scenarios of other categories", func() {
	DescribeTable("replay to their recording and golden",
		func(dir string) { suitekit.Replay(dir) },
		suitekit.OtherEntries(),
	)
})
