package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("children of a reused call id, ordered as the logs' contract orders them", func() {
	// lineageRecording is a root that spawns by call_0 in steps 1 and 2
	// of turn 1, then answers DONE, recorded by a runtime whose ids are
	// session.LineageIDs': child A (root/call_0) created in step 1, child
	// B (root/call_0#2) in step 2, both at the same createdAt, as on the
	// fixed clock of a playbook recording. The logs come B first, as a
	// JSONL store's folder lists them ("#" sorts before ".").
	lineageRecording := func() []*session.Log {
		root := rootLog("root")
		root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		root.chunks(1, 1, 0, spawnCall("call_0")...)
		root.chunks(1, 2, 0, spawnCall("call_0")...)
		root.chunks(1, 3, 0, answer("DONE")...)
		root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		a := childLog("session.1.jsonl", "root/call_0", root, "call_0", session.ModeSpawn).turn(1, "go", "A")
		b := childLog("session.2.jsonl", "root/call_0#2", root, "call_0", session.ModeSpawn).turn(1, "go", "B")
		Expect(b.l.Header.CreatedAt).To(Equal(a.l.Header.CreatedAt))
		return []*session.Log{root.log(), b.log(), a.log()}
	}

	It("ties a recorded child to its creating call by createdAt, then by its id's #n, as session.LineageOrder does, not by the order the logs come in", func() {
		logs := lineageRecording()
		drv, err := fakellm.New(logs)
		Expect(err).NotTo(HaveOccurred())
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		var want, got []string
		for _, l := range ordered {
			want = append(want, l.Header.ID)
		}
		for _, s := range drv.Scripts() {
			got = append(got, s.Header.ID)
		}
		Expect(got).To(Equal(want), "the fixture's numbering")
		Expect(got).To(Equal([]string{"root", "root/call_0", "root/call_0#2"}))

		// Live ids the recording never saw: only the step that created
		// each child tells them apart.
		say(drv, lRoot, 1, 1)
		Expect(say(drv, liveChild("live-x", lRoot.ID, "call_0", session.ModeSpawn), 1, 1)).To(Equal("A"), "created at step 1")
		say(drv, lRoot, 1, 2)
		Expect(say(drv, liveChild("live-y", lRoot.ID, "call_0", session.ModeSpawn), 1, 1)).To(Equal("B"), "created at step 2")
		Expect(say(drv, lRoot, 1, 3)).To(Equal("DONE"))
		Expect(drv.Check()).To(Succeed())
	})

	// The live ids are session.LineageIDs', as journal.Child gives them:
	// root/call_0 for the child step 1 created, root/call_0#2 for step 2's.
	// Each child runs beside its parent (an in-process Journal.Child may
	// be created well before its first call), so it may first ask after
	// the parent went on to a later step; the schedule is the order of the
	// calls below.
	lineRoot := liveRoot("root")
	liveA := liveChild("root/call_0", "root", "call_0", session.ModeSpawn)
	liveB := liveChild("root/call_0#2", "root", "call_0", session.ModeSpawn)
	DescribeTable("routes a live child by the #n of its lineage id to the recorded child of that rank, whatever step its parent is at when it first asks",
		func(parentSteps int, first, second string) {
			drv, err := fakellm.New(lineageRecording())
			Expect(err).NotTo(HaveOccurred())
			for step := 1; step <= parentSteps; step++ {
				say(drv, lineRoot, 1, step)
			}
			child := map[string]llm.SessionRef{"A": liveA, "B": liveB}
			Expect(say(drv, child[first], 1, 1)).To(Equal(first), "%s asks first, its parent past step %d", child[first].ID, parentSteps)
			Expect(say(drv, child[second], 1, 1)).To(Equal(second), "%s asks second", child[second].ID)
			for step := parentSteps + 1; step <= 3; step++ {
				say(drv, lineRoot, 1, step)
			}
			Expect(drv.Check()).To(Succeed())
		},
		Entry("step 1's child asks first, once its parent is at step 2, which reused the id", 2, "A", "B"),
		Entry("step 2's child asks first, once its parent is at step 3", 3, "B", "A"),
		Entry("step 1's child asks first, once its parent is at step 3", 3, "A", "B"),
		Entry("step 2's child asks first, at the step that created it (as before)", 2, "B", "A"),
	)
})
