package spawn_test

import (
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("spawn scenarios", Label("spawn"), func() {
	DescribeTable("replay to their recording and golden",
		func(dir string) {
			o := suitekit.Replay(dir)
			for _, l := range o.Replayed[1:] {
				Expect(l.Header.Mode).To(Equal(session.ModeSpawn), "%s is a spawn child", l.Header.ID)
				Expect(l.Header.SeedLength).To(BeZero(), "a spawn child inherits nothing")
			}
		},
		suitekit.Entries("spawn"),
	)
})
