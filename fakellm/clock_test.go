package fakellm_test

import (
	"context"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// delegation is the stream of an answer that calls one tool per id.
func delegation(ids ...string) []session.Chunk {
	var parts []session.Part
	for _, id := range ids {
		parts = append(parts, session.Part{Type: session.PartToolCall, ID: id, Name: "spawn", Arguments: `{}`})
	}
	return llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: parts}, nil, "")
}

// hangingPair is a recording whose root delegates to call_1, which hangs
// until its turn is cancelled, and call_2, which answers B.
func hangingPair(opts ...fakellm.Option) *fakellm.Driver {
	GinkgoHelper()
	return hangingPairAt(1, opts...)
}

// hangingPairAt is hangingPair with the hanging child numbering its turn
// aTurn.
func hangingPairAt(aTurn int, opts ...fakellm.Option) *fakellm.Driver {
	GinkgoHelper()
	root := rootLog("rec-root")
	root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
	root.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
	root.chunks(1, 1, 1, delegation("call_1", "call_2")...)
	root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
	a := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn)
	a.ev(session.TypeTurnStart, session.TurnStartData{Turn: aTurn, Trigger: "subagent"})
	a.chunks(aTurn, 1, 1, prefix...)
	a.ev(session.TypeTurnEnd, session.TurnEndData{Turn: aTurn, Reason: session.EndReason{Kind: session.TurnAborted}})
	b := childLog("session.2.jsonl", "rec-b", root, "call_2", session.ModeSpawn).turn(1, "task b", "B")
	drv, err := fakellm.New([]*session.Log{root.log(), a.log(), b.log()}, append([]fakellm.Option{fakellm.WithVirtualTime()}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	return drv
}

var (
	lA = liveChild("live-a", "live-1", "call_1", session.ModeSpawn)
	lB = liveChild("live-b", "live-1", "call_2", session.ModeSpawn)
)

// streamIn drains the call in a goroutine; the channel closes when its
// stream ends and then holds its chunks.
func streamIn(ctx context.Context, drv *fakellm.Driver, ref llm.SessionRef, turn, step int) chan []session.Chunk {
	out := make(chan []session.Chunk, 1)
	go func() {
		defer GinkgoRecover()
		cs, err := callCtx(ctx, drv, ref, turn, step)
		Expect(err).NotTo(HaveOccurred())
		out <- cs
		close(out)
	}()
	return out
}

var _ = Describe("virtual time", Label("vclock"), func() {
	It("fires a held timeout once the call recorded before its wait has been answered, with DeadlineExceeded for it and what derives from it", func(ctx SpecContext) {
		drv := hangingPair()
		Expect(say(drv, lRoot, 1, 1)).To(BeEmpty())
		tctx, cancel := drv.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		_, hasDeadline := tctx.Deadline()
		Expect(hasDeadline).To(BeFalse(), "no real deadline to derive a timer from")
		derived, stop := context.WithCancel(tctx)
		defer stop()
		child, stopChild := drv.WithTimeout(tctx, 2*time.Hour)
		defer stopChild()

		hang := streamIn(derived, drv, lA, 1, 1)
		Eventually(drv.Waiting).WithContext(ctx).Should(ContainElement(HavePrefix("session root/call_1 (spawn; session.1.jsonl), call 1 (turn 1 step 1): a hang, waiting for its context to end; the timeout of 1h0m0s that ends it is pending")))
		Expect(drv.Waiting()).To(ContainElement("session root/call_2 (spawn; session.2.jsonl): its recorded call 1 (turn 1 step 1) was never made"))
		Expect(hang).NotTo(Receive(), "the sibling's recorded call is due: the timeout is held")
		Expect(tctx.Err()).To(BeNil())

		Expect(say(drv, lB, 1, 1)).To(Equal("B"))
		var got []session.Chunk
		Eventually(hang).WithContext(ctx).Should(Receive(&got))
		Expect(got).To(Equal(append(prefix[:2:2], session.Finish(session.FinishAborted))))
		Expect(tctx.Err()).To(Equal(context.DeadlineExceeded))
		Expect(context.Cause(tctx)).To(Equal(context.DeadlineExceeded))
		Expect(derived.Err()).To(Equal(context.DeadlineExceeded), "a derived context ends with its parent's error")
		Expect(child.Err()).To(Equal(context.DeadlineExceeded), "a later timeout ends with the one that fired")
		Expect(drv.Check()).To(Succeed())
	}, SpecTimeout(time.Minute))

	It("fires a held timeout after its real duration when the call it waits for never comes", func(ctx SpecContext) {
		drv := hangingPair()
		Expect(say(drv, lRoot, 1, 1)).To(BeEmpty())
		tctx, cancel := drv.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		hang := streamIn(tctx, drv, lA, 1, 1)
		Eventually(hang).WithContext(ctx).Should(Receive())
		Expect(tctx.Err()).To(Equal(context.DeadlineExceeded))
		Expect(drv.Check()).To(MatchError(fakellm.ErrNotConsumed))
	}, SpecTimeout(time.Minute))

	It("fires timeouts in the order they are due, whatever order they were made in", func(ctx SpecContext) {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindHang, Chunks: prefix}}, fakellm.WithVirtualTime())
		hours := []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour}
		ctxs := make([]context.Context, len(hours))
		earlierDone := make([]chan bool, len(hours))
		for i, h := range hours {
			c, cancel := drv.WithTimeout(context.Background(), h)
			DeferCleanup(cancel)
			ctxs[i] = c
		}
		for i := range hours {
			earlierDone[i] = make(chan bool, 1)
			context.AfterFunc(ctxs[i], func() {
				ok := true
				for j := range hours {
					if hours[j] < hours[i] && ctxs[j].Err() == nil {
						ok = false
					}
				}
				earlierDone[i] <- ok
			})
		}
		hang := streamIn(ctxs[0], drv, lRoot, 1, 1)
		Eventually(hang).WithContext(ctx).Should(Receive())
		for i := range hours {
			Eventually(earlierDone[i]).WithContext(ctx).Should(Receive(BeTrue()), "the %v timeout fired after every earlier one", hours[i])
		}
	}, SpecTimeout(time.Minute))

	It("ends a timeout's context with its parent's error, or with Canceled when cancelled", func() {
		drv := authored(nil, fakellm.WithVirtualTime())
		why := errors.New("the user left")
		parent, cancelParent := context.WithCancelCause(context.Background())
		c, cancel := drv.WithTimeout(parent, time.Hour)
		defer cancel()
		cancelParent(why)
		Eventually(c.Done()).Should(BeClosed())
		Expect(c.Err()).To(Equal(context.Canceled))
		Expect(context.Cause(c)).To(Equal(why))

		c2, cancel2 := drv.WithTimeout(context.Background(), time.Hour)
		cancel2()
		Expect(c2.Err()).To(Equal(context.Canceled))
		Expect(drv.Waiting()).To(BeEmpty(), "a cancelled timeout is no longer pending")

		c3, cancel3 := drv.WithTimeout(context.Background(), 0)
		defer cancel3()
		Expect(c3.Err()).To(Equal(context.DeadlineExceeded), "a timeout of 0 has passed at once, as with context.WithTimeout")
		c4, cancel4 := drv.WithTimeout(c2, time.Hour)
		defer cancel4()
		Expect(c4.Err()).To(Equal(context.Canceled), "made from a context that has ended")
	})

	It("is context.WithTimeout without WithVirtualTime", func() {
		drv := authored(nil)
		c, cancel := drv.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		_, ok := c.Deadline()
		Expect(ok).To(BeTrue())
	})

	It("says what a call waits for, and a stream nobody reads", func() {
		drv := hangingPair()
		seq, err := drv.Stream(context.Background(), &llm.Request{Session: lRoot, Turn: 1, Step: 1, Attempt: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Waiting()).To(ConsistOf("session root (session.jsonl), call 1 (turn 1 step 1): its answer is still streaming (a stream the runtime stopped reading holds the replay)"))
		for range seq {
		}
		cctx, cancel := context.WithCancel(context.Background())
		hang := streamIn(cctx, drv, lA, 1, 1)
		Eventually(drv.Waiting).Should(ContainElement("session root/call_1 (spawn; session.1.jsonl), call 1 (turn 1 step 1): a hang, waiting for its context to end; no pending timeout ends it, so only a cancel of the runtime's own would"))
		cancel()
		Eventually(hang).Should(Receive())
	})
})
