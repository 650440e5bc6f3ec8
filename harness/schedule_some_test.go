package harness_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A schedule search must see what goes wrong under some schedules only,
// wherever in the tree it is, and its schedules must not get in each
// other's way.

// perRun returns the reference runtime, run by run (from 1) handed the Env
// that change makes of it.
func perRun(change func(run int64, env *agentsnap.Env)) agentsnap.Runtime {
	var runs atomic.Int64
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		e := *env
		change(runs.Add(1), &e)
		return agent.Reference.Run(ctx, &e)
	})
}

// laterChildren is a store that stamps the events of every child session
// by ms milliseconds later: what the comparison with the recording
// normalises, and two schedules' bytes must not differ in.
type laterChildren struct {
	persistence.Store
	ms       int64
	mu       sync.Mutex
	children map[string]bool
}

func (s *laterChildren) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	s.mu.Lock()
	s.children[h.ID] = h.IsChild()
	s.mu.Unlock()
	return s.Store.Create(ctx, h, seed)
}

func (s *laterChildren) Append(ctx context.Context, id string, events []session.Event) error {
	s.mu.Lock()
	child := s.children[id]
	s.mu.Unlock()
	if child {
		events = append([]session.Event(nil), events...)
		for i := range events {
			events[i].Time += s.ms
		}
	}
	return s.Store.Append(ctx, id, events)
}

var _ = Describe("a schedule search, for what goes wrong under some schedules only", func() {
	var fx *fixture.Fixture
	BeforeEach(func() {
		var err error
		fx, err = fixture.Load("../fixtures/parallel/fan-out")
		Expect(err).NotTo(HaveOccurred())
	})

	It("compares every session's bytes, not only the root's", func(ctx SpecContext) {
		rt := perRun(func(run int64, env *agentsnap.Env) {
			env.Store = &laterChildren{Store: env.Store, ms: run * time.Millisecond.Milliseconds(), children: map[string]bool{}}
		})
		res, err := judge.SearchSchedules(ctx, fx, harness.Options{Runtime: rt}, 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unmatched).To(Equal(-1), "each schedule matches the recording, whose times are normalised")
		Expect(res.Diverged).To(Equal(1), res.Report())
		Expect(res.Passed()).To(BeFalse())
		Expect(res.Difference.Session).To(Equal("session 1"), "the first child in lineage order; the root wrote the same bytes")
		Expect(res.Report()).To(MatchRegexp(`session 1 \(spawn of root via call_count\): line 2 differs only in what the comparison with the recording normalises`))
	})

	It("reports a run error under one schedule only, naming that schedule and the error", func(ctx SpecContext) {
		// The second run, schedule 1, fails after writing the same logs.
		var runs atomic.Int64
		rt := agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			if err := agent.Reference.Run(ctx, env); err != nil {
				return err
			}
			if runs.Add(1) == 2 {
				return errors.New("myagent: flushing telemetry: connection refused")
			}
			return nil
		})
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: rt, Schedules: 3})
		Expect(err).NotTo(HaveOccurred())
		Expect(runs.Load()).To(Equal(int64(3)))
		Expect(o.Differences).To(BeEmpty(), "schedule 0, the replay's own, matches")
		Expect(o.Passed()).To(BeFalse())
		Expect(o.RunErrors).To(ConsistOf(MatchError(judge.ErrScheduleDependent)))
		report := o.Report()
		Expect(report).To(ContainSubstring("of 3 schedules (seeds 1..3), 0 wrote other logs than schedule 0 and 1 do not match the recording"))
		Expect(report).To(ContainSubstring("schedule 1 (seed 2) does not match the recording"))
		Expect(report).To(ContainSubstring("replay error: myagent: flushing telemetry: connection refused"))
		Expect(report).To(ContainSubstring("-schedule-seed=2"))
		Expect(report).To(ContainSubstring("Every schedule wrote the same logs, but the replay fails under some of them only"))
		Expect(report).To(ContainSubstring("the agent fails under some orders of its concurrent work only"))
		Expect(report).NotTo(ContainSubstring("Record tool results in the order of the calls"), "the logs do not depend on the order")
		Expect(report).NotTo(ContainSubstring("re-record the scenario"), "re-recording cannot fix it")

		runs.Store(0)
		res, err := judge.SearchSchedules(ctx, fx, harness.Options{Runtime: rt}, 3)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Diverged).To(Equal(-1))
		Expect(res.Unmatched).To(Equal(1))
		Expect(res.Mismatches).To(Equal(1))
		Expect(res.Reproduce()).To(Equal(int64(2)))
		Expect(res.Mismatch.RunErrors).To(ConsistOf(MatchError(ContainSubstring("connection refused"))))
	})

	It("gives every schedule a store of its own: only the replay's own persists through Options.Store", func(ctx SpecContext) {
		shared := memory.New()
		DeferCleanup(shared.Close)
		opened := 0
		open := func() (persistence.Store, error) {
			opened++
			return persistence.Namespace(shared, "parallel/fan-out/"), nil
		}
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference, Store: open, Schedules: 3})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.RunErrors).To(BeEmpty(), "schedules that share one store's ids collide: session already exists")
		Expect(o.Passed()).To(BeTrue(), o.Report())
		Expect(opened).To(Equal(1))
		logs, err := persistence.LoadAll(ctx, shared)
		Expect(err).NotTo(HaveOccurred())
		Expect(logs).To(HaveLen(len(fx.Logs)), "schedule 0's sessions, once")
	})
})
