package harness_test

import (
	"context"
	"path/filepath"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// A schedule search replays one fixture many times; every replay serves the
// same recorded answers, so the scripts are derived once for all of them.
var _ = Describe("a schedule search's scripts", func() {
	// counting is the real derivation, counted.
	counting := func(n *atomic.Int32) fakellm.Deriver {
		return func(l *session.Log) (*fakellm.Script, error) {
			n.Add(1)
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		}
	}
	load := func() *fixture.Fixture {
		GinkgoHelper()
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "parallel", "nested-fan-out"))
		Expect(err).NotTo(HaveOccurred())
		Expect(len(fx.Logs)).To(BeNumerically(">", 2))
		return fx
	}

	It("are derived once for a replay and all its schedules", func() {
		fx := load()
		var derived atomic.Int32
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference, Schedules: 8, Deriver: counting(&derived)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Err()).NotTo(HaveOccurred())
		Expect(derived.Load()).To(BeEquivalentTo(len(fx.Logs)))
	})

	It("are derived once by SearchSchedules, whose every schedule matches", func() {
		fx := load()
		var derived atomic.Int32
		r, err := judge.SearchSchedules(context.Background(), fx, judge.Options{Runtime: agent.Reference, Deriver: counting(&derived)}, 6)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Passed()).To(BeTrue(), r.Report())
		Expect(r.Seeds).To(HaveLen(6))
		Expect(derived.Load()).To(BeEquivalentTo(len(fx.Logs)))
	})

	It("are derived again by a replay of its own, whose options may derive them otherwise", func() {
		fx := load()
		var derived atomic.Int32
		for range 2 {
			_, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference, Deriver: counting(&derived)})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(derived.Load()).To(BeEquivalentTo(2 * len(fx.Logs)))
	})
})
