package fakellm_test

import (
	"fmt"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Prepare of a large recording, derived on every processor", func() {
	// tree returns a root and eight children of many turns each — more
	// events in all than a few small logs, which derive on one goroutine —
	// the children named in broken without a finish to their last call.
	tree := func(broken ...int) []*session.Log {
		root := rootLog("root")
		var children []*builder
		for n := 1; n <= 8; n++ {
			c := childLog(fmt.Sprintf("session.%d.jsonl", n), fmt.Sprintf("c%d", n), root, fmt.Sprintf("call_%d", n), session.ModeSpawn)
			for t := 1; t <= 40; t++ {
				c.turn(t, "go on", "working", "done")
			}
			for _, b := range broken {
				if b == n {
					c.ev(session.TypeTurnStart, session.TurnStartData{Turn: 41, Trigger: "user"})
					c.chunks(41, 1, 0, answer("cut")[:2]...)
				}
			}
			children = append(children, c)
		}
		logs := []*session.Log{root.turn(1, "delegate", "ok").log()}
		for _, c := range children {
			logs = append(logs, c.log())
		}
		events := 0
		for _, l := range logs {
			events += len(l.Events)
		}
		Expect(events).To(BeNumerically(">=", 4096), "the tree is large enough to derive in parallel")
		return logs
	}

	It("derives every log's script, in the logs' order", func() {
		logs := tree()
		rec, err := fakellm.Prepare(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec.Scripts()).To(HaveLen(len(logs)))
		for i, s := range rec.Scripts() {
			want, err := fakellm.DeriveLog(logs[i], fakellm.DeriveOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Entries).To(Equal(want.Entries), "script %d", i)
		}
	})

	It("reports the first broken log in their order, however the derivations interleave", func() {
		logs := tree(3, 7)
		for range 20 {
			_, err := fakellm.Prepare(logs)
			Expect(err).To(MatchError(ContainSubstring("session c3, turn 41 step 1")))
		}
	})
})
