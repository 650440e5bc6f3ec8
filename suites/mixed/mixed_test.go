package mixed_test

import (
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("mixed scenarios", Label("mixed"), func() {
	DescribeTable("replay to their recording and golden",
		func(dir string) {
			o := suitekit.Replay(dir)
			modes := map[session.Mode]int{}
			for _, l := range o.Replayed[1:] {
				modes[l.Header.Mode]++
			}
			Expect(modes).To(HaveKey(session.ModeSpawn))
			Expect(modes).To(HaveKey(session.ModeFork))
		},
		suitekit.Entries("mixed"),
	)
})
