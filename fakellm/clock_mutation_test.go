package fakellm_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// A child that hangs until its turn's timeout, while its parent waits for
// it: nothing else is due, so the virtual clock fires the timeout at once,
// and the parent's next call (recorded after the child's wait ended)
// follows. A clock that took that next call for due would hold the
// timeout for its real hour, and the replay would stall.
var _ = Describe("virtual time while a parent waits for a hanging child", Label("vclock"), func() {
	// hangingChild is a root that delegates call_1 in turn rootTurn, its
	// step 1, then answers DONE in step 2; the child hangs until its
	// timeout. retried: step 1's first attempt streamed call_1 and failed
	// before the retry that the child follows. hungFirst: the root's turn
	// 1 is a hang of its own that its timeout ended.
	hangingChild := func(retried, hungFirst bool) *fakellm.Driver {
		GinkgoHelper()
		root := rootLog("rec-root")
		turn := 1
		if hungFirst {
			root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
			root.chunks(1, 1, 1, prefix...)
			root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
			turn = 2
		}
		root.ev(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"})
		if retried {
			root.chunks(turn, 1, 1, append(delegation("call_1")[:2], session.ErrorFinish("NETWORK", "reset"))...)
			root.chunks(turn, 1, 2, delegation("call_1")...)
		} else {
			root.chunks(turn, 1, 1, delegation("call_1")...)
		}
		root.chunks(turn, 2, 1, answer("DONE")...)
		root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
		a := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn)
		a.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "subagent"})
		a.chunks(1, 1, 1, prefix...)
		a.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
		drv, err := fakellm.New([]*session.Log{root.log(), a.log()}, fakellm.WithVirtualTime())
		Expect(err).NotTo(HaveOccurred())
		return drv
	}
	// hangUntilTimeout runs a call that hangs under a timeout of an hour
	// and expects the virtual clock to end it well before that.
	hangUntilTimeout := func(drv *fakellm.Driver, run func(ctx context.Context) chan []session.Chunk) {
		GinkgoHelper()
		tctx, cancel := drv.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		Eventually(run(tctx)).WithTimeout(10*time.Second).Should(Receive(), "the hour passed in virtual time")
		Expect(tctx.Err()).To(Equal(context.DeadlineExceeded))
	}

	DescribeTable("fires the child's timeout at once, then replays the parent's next call",
		func(retried, hungFirst bool) {
			drv := hangingChild(retried, hungFirst)
			turn := 1
			if hungFirst {
				hangUntilTimeout(drv, func(ctx context.Context) chan []session.Chunk { return streamIn(ctx, drv, lRoot, 1, 1) })
				turn = 2
			}
			if retried {
				_, err := call(drv, lRoot, turn, 1) // the failed attempt
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(say(drv, lRoot, turn, 1)).To(BeEmpty()) // the delegation
			hangUntilTimeout(drv, func(ctx context.Context) chan []session.Chunk { return streamIn(ctx, drv, lA, 1, 1) })
			Expect(say(drv, lRoot, turn, 2)).To(Equal("DONE"))
			Expect(drv.Check()).To(Succeed())
		},
		Entry("the child created by a step of one attempt", false, false),
		Entry("the child created by a retried step, which follows the retry", true, false),
		Entry("the child created in the root's second turn, after the root's own hang of turn 1", false, true),
	)
})

// Two children hang, each until its own timeout; the first to time out
// then makes a call of its turn 2. The clock fires the later timeout only
// once that call is answered: a call whose context just ended is about to
// end, not waiting, so the replay is not stalled while it lands.
var _ = Describe("virtual time when one of two hanging children times out", Label("vclock"), func() {
	It("holds the other's later timeout until the first has made its next call", func() {
		root := rootLog("rec-root")
		root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		root.chunks(1, 1, 1, delegation("call_1", "call_2")...)
		root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
		a := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn)
		a.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "subagent"})
		a.chunks(1, 1, 1, prefix...)
		a.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
		a.turn(2, "again", "A2")
		b := childLog("session.2.jsonl", "rec-b", root, "call_2", session.ModeSpawn)
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "subagent"})
		b.chunks(1, 1, 1, prefix...)
		b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
		drv, err := fakellm.New([]*session.Log{root.log(), a.log(), b.log()}, fakellm.WithVirtualTime())
		Expect(err).NotTo(HaveOccurred())

		Expect(say(drv, lRoot, 1, 1)).To(BeEmpty())
		ctxA, cancelA := drv.WithTimeout(context.Background(), time.Hour)
		defer cancelA()
		ctxB, cancelB := drv.WithTimeout(context.Background(), 2*time.Hour)
		defer cancelB()
		hangB := streamIn(ctxB, drv, lB, 1, 1)
		hangA := streamIn(ctxA, drv, lA, 1, 1)
		Eventually(hangA).WithTimeout(10 * time.Second).Should(Receive())
		Expect(ctxA.Err()).To(Equal(context.DeadlineExceeded))
		Expect(ctxB.Err()).To(BeNil(), "the 2h timeout waits for the call the recording made before it")
		Expect(say(drv, lA, 2, 1)).To(Equal("A2"))
		Eventually(hangB).WithTimeout(10 * time.Second).Should(Receive())
		Expect(ctxB.Err()).To(Equal(context.DeadlineExceeded))
		Expect(drv.Check()).To(Succeed())
	})
})

// With a watched store, a sibling that answered its last call holds a
// hanging child's timeout only until it stores its turn/end: then the
// replay can make no progress but by the timeout, which fires.
var _ = Describe("virtual time with a watched store, once a sibling stored its turn/end", Label("vclock"), func() {
	It("fires the hanging child's timeout", func(ctx SpecContext) {
		drv := hangingPair()
		store := drv.Watch(memory.New())
		DeferCleanup(store.Close)
		Expect(say(drv, lRoot, 1, 1)).To(BeEmpty())
		tctx, cancel := drv.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		hang := streamIn(tctx, drv, lA, 1, 1)
		Expect(say(drv, lB, 1, 1)).To(Equal("B"))
		Expect(tctx.Err()).To(BeNil(), "the sibling has not stored the end of its turn")
		Expect(store.Create(ctx, session.Header{ID: lB.ID, CreatedAt: 1}, nil)).To(Succeed())
		Expect(store.Append(ctx, lB.ID, storetest.CompletedTurn(0, 1, "task b", "B"))).To(Succeed())
		Eventually(hang).WithTimeout(10*time.Second).Should(Receive(), "the hour passed in virtual time")
		Expect(tctx.Err()).To(Equal(context.DeadlineExceeded))
		Expect(drv.Check()).To(Succeed())
	})
})
