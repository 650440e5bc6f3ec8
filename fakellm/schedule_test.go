package fakellm_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// asked is a schedule that remembers every plan the driver asks for, and
// plans the waits of waits (nil: none) for every call, or only for the call
// only names ("root call 2") when set.
type asked struct {
	waits []time.Duration
	only  string

	mu   sync.Mutex
	keys []string
}

func (a *asked) Plan(lineage string, call, chunks int) fakellm.Plan {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys = append(a.keys, fmt.Sprintf("%s call %d (%d chunks)", lineage, call, chunks))
	if a.only != "" && fmt.Sprintf("%s call %d", lineage, call) != a.only {
		return fakellm.Plan{}
	}
	return fakellm.Plan{Waits: a.waits}
}

func (a *asked) sorted() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(slices.Values(a.keys))
}

// margin is how much longer the seed plans session a's first call to wait
// than session b's, both answers of n chunks.
func margin(seed int64, a, b string, n int) time.Duration {
	s := fakellm.Seeded(seed)
	return s.Plan(a, 1, n).Total() - s.Plan(b, 1, n).Total()
}

// heldBack returns the first seed from 1 whose plan holds session
// lagging back before its first chunk at least min longer than other waits
// in all, both answers of n chunks.
func heldBack(lagging, other string, n int, min time.Duration) int64 {
	GinkgoHelper()
	for seed := int64(1); seed <= 100000; seed++ {
		s := fakellm.Seeded(seed)
		if s.Plan(lagging, 1, n).Waits[0]-s.Plan(other, 1, n).Total() >= min {
			return seed
		}
	}
	Fail(fmt.Sprintf("no seed holds %s back %v longer than %s", lagging, min, other))
	return 0
}

var _ = Describe("a seeded schedule", func() {
	It("plans the same waits for the same seed, lineage and call, within its bound", func() {
		lineages := []string{"root", "root/call_1", "root/call_2", "root/call_1/call_9"}
		var lagged, plain int
		for seed := int64(1); seed <= 500; seed++ {
			for _, l := range lineages {
				for call := 1; call <= 3; call++ {
					p := fakellm.Seeded(seed).Plan(l, call, 7)
					Expect(fakellm.Seeded(seed).Plan(l, call, 7)).To(Equal(p), "seed %d %s call %d", seed, l, call)
					Expect(p.Waits).To(HaveLen(8), "one wait per chunk, and one before a finish the driver adds")
					Expect(p.Total()).To(BeNumerically("<=", fakellm.MaxSeededWait))
					Expect(slices.Min(p.Waits)).To(BeNumerically(">=", 0))
					if p.Total() >= 500*time.Microsecond {
						lagged++
					} else {
						plain++
					}
				}
			}
		}
		Expect(lagged).To(BeNumerically(">", 1000), "about one call in two lags")
		Expect(plain).To(BeNumerically(">", 1000), "about one call in two does not")
	})

	It("plans differently for another seed, session or call", func() {
		base := fakellm.Seeded(1).Plan("root/call_1", 1, 7)
		differ := func(p fakellm.Plan) bool { return !slices.Equal(p.Waits, base.Waits) }
		Expect(differ(fakellm.Seeded(2).Plan("root/call_1", 1, 7))).To(BeTrue(), "another seed")
		Expect(differ(fakellm.Seeded(1).Plan("root/call_2", 1, 7))).To(BeTrue(), "another session")
		Expect(differ(fakellm.Seeded(1).Plan("root/call_1", 2, 7))).To(BeTrue(), "another call")
	})

	It("makes each of two siblings finish first for some seed within 50", func() {
		var first, second bool
		for seed := int64(1); seed <= 50; seed++ {
			m := margin(seed, "root/call_1", "root/call_2", 5)
			first = first || m <= -500*time.Microsecond
			second = second || m >= 500*time.Microsecond
		}
		Expect(first).To(BeTrue(), "a seed that holds root/call_2 back by 500µs or more")
		Expect(second).To(BeTrue(), "a seed that holds root/call_1 back by 500µs or more")
	})
})

var _ = Describe("Driver under a schedule", func() {
	// replayTree runs every call of tree() with the children in the given
	// order and returns what each call was served.
	replayTree := func(drv *fakellm.Driver, childrenFirst ...llm.SessionRef) []string {
		GinkgoHelper()
		out := []string{say(drv, lRoot, 1, 1), say(drv, lRoot, 2, 1)}
		turn := map[string]int{lSpawn.ID: 1, lFork.ID: 3, lGrand.ID: 1}
		for _, ref := range childrenFirst {
			out = append(out, say(drv, ref, turn[ref.ID], 1))
		}
		out = append(out, say(drv, lFork, 3, 2), say(drv, lRoot, 2, 2))
		Expect(drv.Check()).To(Succeed())
		return out
	}

	It("plans each call by its session's recorded lineage and call number, whatever order they arrive in", func() {
		a, b := &asked{}, &asked{}
		replayTree(newTree(fakellm.WithScheduleOf(a)), lSpawn, lGrand, lFork)
		replayTree(newTree(fakellm.WithScheduleOf(b)), lFork, lSpawn, lGrand)
		Expect(a.sorted()).To(Equal([]string{
			"root call 1 (4 chunks)", "root call 2 (5 chunks)", "root call 3 (4 chunks)",
			"root/call_1 call 1 (4 chunks)", "root/call_1/call_9 call 1 (4 chunks)",
			"root/call_2 call 1 (4 chunks)", "root/call_2 call 2 (4 chunks)",
		}))
		Expect(b.sorted()).To(Equal(a.sorted()))
	})

	It("serves the same chunks under every seed as without a schedule", func() {
		want := replayTree(newTree(), lSpawn, lGrand, lFork)
		for seed := int64(1); seed <= 20; seed++ {
			Expect(replayTree(newTree(fakellm.WithSchedule(seed)), lSpawn, lGrand, lFork)).To(Equal(want), "seed %d", seed)
		}
	})

	It("waits before the finish it adds to an authored throw, and serves the throw the same", func() {
		ov, err := fakellm.ParseOverride([]byte(`{"session.1.jsonl": {"patch": {"0": {"kind": "throw", "code": "RATE_LIMIT", "message": "slow down"}}}}`), "replay.override.json")
		Expect(err).NotTo(HaveOccurred())
		sched := &asked{waits: []time.Duration{3 * time.Millisecond}}
		drv := newTree(fakellm.WithOverride(ov), fakellm.WithScheduleOf(sched))
		say(drv, lRoot, 1, 1)
		say(drv, lRoot, 2, 1)
		start := time.Now()
		cs, err := call(drv, lSpawn, 1, 1)
		Expect(time.Since(start)).To(BeNumerically(">=", 3*time.Millisecond), "the plan's one wait precedes the added finish")
		Expect(err).NotTo(HaveOccurred())
		Expect(cs).To(HaveLen(1))
		Expect(cs[0].Reason.Kind).To(Equal(session.FinishError))
		Expect(cs[0].Reason.Failure.Code).To(Equal("RATE_LIMIT"))
		Expect(sched.sorted()).To(ContainElement("root/call_1 call 1 (0 chunks)"))
	})

	DescribeTable("ends a wait at once when the call's context is cancelled, with an aborted finish",
		func(ctx SpecContext, w time.Duration) {
			sched := &asked{waits: []time.Duration{0, w}, only: "root call 2"}
			drv := newTree(fakellm.WithScheduleOf(sched))
			say(drv, lRoot, 1, 1)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			seq, err := drv.Stream(cctx, &llm.Request{Session: lRoot, Turn: 2, Step: 1, Attempt: 1})
			Expect(err).NotTo(HaveOccurred())
			var got []session.Chunk
			for c := range seq {
				got = append(got, c)
				cancel() // after the first chunk: the wait before the second is cut
			}
			Expect(got).To(HaveLen(2))
			Expect(got[1]).To(Equal(session.Finish(session.FinishAborted)))
		},
		Entry("a timer wait", time.Hour, SpecTimeout(10*time.Second)),
		Entry("a spun wait", fakellm.SpinWait, SpecTimeout(10*time.Second)),
	)

	It("holds a lagging call while a call beside it that plans to wait less is in flight, at most HoldMax", func(ctx SpecContext) {
		lag := 2*fakellm.SpinWait + 2*time.Microsecond // sleeps of a tenth of a millisecond
		sched := &asked{waits: []time.Duration{lag}, only: "root/call_1 call 1"}
		drv := newTree(fakellm.WithScheduleOf(sched))
		say(drv, lRoot, 1, 1)
		say(drv, lRoot, 2, 1)
		// The fork child's call is in flight (no waits), and never ends.
		_, err := drv.Stream(ctx, &llm.Request{Session: lFork, Turn: 3, Step: 1, Attempt: 1})
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		Expect(say(drv, lSpawn, 1, 1)).To(Equal("ALPHA"))
		Expect(time.Since(start)).To(BeNumerically(">=", fakellm.HoldMax))
	}, SpecTimeout(10*time.Second))

	It("finishes concurrent siblings in the order the seed plans", func() {
		// Answers of 4 chunks. One goroutine at a time (GOMAXPROCS 1): a
		// sibling held back before its first chunk cannot overtake the
		// other, which is ahead by every step, even when the machine
		// stalls the process.
		DeferCleanup(runtime.GOMAXPROCS, runtime.GOMAXPROCS(1))
		for _, c := range []struct {
			seed  int64
			first string
		}{
			{heldBack("root/call_1", "root/call_2", 4, 2*time.Millisecond), lFork.ID},
			{heldBack("root/call_2", "root/call_1", 4, 2*time.Millisecond), lSpawn.ID},
		} {
			drv := newTree(fakellm.WithSchedule(c.seed))
			say(drv, lRoot, 1, 1)
			say(drv, lRoot, 2, 1)
			var mu sync.Mutex
			var order []string
			var wg sync.WaitGroup
			start := make(chan struct{})
			for _, ref := range []llm.SessionRef{lSpawn, lFork} {
				turn := map[string]int{lSpawn.ID: 1, lFork.ID: 3}[ref.ID]
				wg.Go(func() {
					defer GinkgoRecover()
					<-start
					say(drv, ref, turn, 1)
					mu.Lock()
					order = append(order, ref.ID)
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			Expect(order[0]).To(Equal(c.first), "seed %d", c.seed)
		}
	})
})
