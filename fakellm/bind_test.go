package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Driver.Bind", func() {
	// twins is a root whose one answer spawns two children by call_0 (a
	// tool that starts two), then answers DONE: A created first, B next.
	twins := func() []*session.Log {
		root := rootLog("rec-root")
		root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		root.chunks(1, 1, 0, spawnCall("call_0")...)
		root.chunks(1, 2, 0, answer("DONE")...)
		root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		a := childLog("session.1.jsonl", "rec-a", root, "call_0", session.ModeSpawn).turn(1, "go", "A")
		b := childLog("session.2.jsonl", "rec-b", root, "call_0", session.ModeSpawn).turn(1, "go", "B")
		b.l.Header.CreatedAt = a.l.Header.CreatedAt + 1
		return []*session.Log{root.log(), a.log(), b.log()}
	}

	It("binds a live child that makes no call to the recorded child its first call would get, so a sibling that asks first gets the next", func() {
		drv, err := fakellm.New(twins())
		Expect(err).NotTo(HaveOccurred())
		say(drv, lRoot, 1, 1)
		first, second := liveChild("live-x", lRoot.ID, "call_0", session.ModeSpawn), liveChild("live-y", lRoot.ID, "call_0", session.ModeSpawn)
		Expect(drv.Bind(first)).To(Succeed())
		Expect(drv.Bind(first)).To(Succeed(), "bound already: stays bound")
		Expect(say(drv, second, 1, 1)).To(Equal("B"), "the recording live-x was bound to is not served to its sibling")
		Expect(say(drv, first, 1, 1)).To(Equal("A"))
		Expect(say(drv, lRoot, 1, 2)).To(Equal("DONE"))
		Expect(drv.Check()).To(Succeed())
	})

	It("says why a session cannot be bound, and keeps nothing for Check: no call was refused", func() {
		drv, err := fakellm.New(twins())
		Expect(err).NotTo(HaveOccurred())
		orphan := liveChild("live-z", "live-nobody", "call_0", session.ModeSpawn)
		Expect(drv.Bind(orphan)).To(MatchError(ContainSubstring("child session live-z of live session live-nobody, created by call \"call_0\"")))
		Expect(drv.Bind(llm.SessionRef{ID: "live-1"})).To(Succeed())
		say(drv, lRoot, 1, 1)
		say(drv, liveChild("live-x", lRoot.ID, "call_0", session.ModeSpawn), 1, 1)
		say(drv, liveChild("live-y", lRoot.ID, "call_0", session.ModeSpawn), 1, 1)
		say(drv, lRoot, 1, 2)
		Expect(drv.Check()).To(Succeed())
	})
})
