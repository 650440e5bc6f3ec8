package fork_test

import (
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("fork scenarios", Label("fork"), func() {
	DescribeTable("replay to their recording and golden",
		func(dir string) {
			o := suitekit.Replay(dir)
			forks := 0
			for _, l := range o.Replayed[1:] {
				if l.Header.Mode != session.ModeFork {
					continue
				}
				forks++
				Expect(l.Header.SeedLength).To(BeNumerically(">", 0), "%s forks after a completed turn, so it inherits one", l.Header.ID)
				Expect(l.Events[l.Header.SeedLength-1].Type).To(Equal(session.TypeTurnEnd), "the seed ends at a turn/end")
			}
			Expect(forks).To(BeNumerically(">", 0), "a fork scenario has a fork child")
		},
		suitekit.Entries("fork"),
	)
})
