package fakellm_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// toolPlans is a schedule that plans wait for every recorded tool's call
// and nothing for model calls, and keeps what it was asked.
type toolPlans struct {
	wait  time.Duration
	mu    sync.Mutex
	asked []string
}

func (s *toolPlans) Plan(lineage string, call, chunks int) fakellm.Plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, lineage)
	if chunks == 0 && lineage == "root tool call_0" && call == 1 {
		return fakellm.Plan{Waits: []time.Duration{s.wait}}
	}
	return fakellm.Plan{}
}

var _ = Describe("a schedule over recorded tools", func() {
	It("plans each recorded tool's call and hands its result back after the plan's wait", func() {
		plans := &toolPlans{wait: 20 * time.Millisecond}
		drv, err := fakellm.New([]*session.Log{rootLog("root").toolTurn(1, "a", "r1", 1).log()}, fakellm.WithScheduleOf(plans))
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		out, err := drv.ReplayTool(context.Background(), liveRoot("root"),
			session.ToolRecordedData{Turn: 1, Step: 1, CallID: "call_0", Name: "lookup", Arguments: `{"k":1}`})
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("r1"))
		Expect(plans.asked).To(Equal([]string{"root tool call_0"}), "the tools of one answer finish in the orders a search varies only if the schedule plans them")
		Expect(time.Since(start)).To(BeNumerically(">=", plans.wait))
	})

	It("hands the recorded result back at once when the call's context ends during the wait", func() {
		drv, err := fakellm.New([]*session.Log{rootLog("root").toolTurn(1, "a", "r1", 1).log()}, fakellm.WithScheduleOf(&toolPlans{wait: time.Hour}))
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out, err := drv.ReplayTool(ctx, liveRoot("root"),
			session.ToolRecordedData{Turn: 1, Step: 1, CallID: "call_0", Name: "lookup", Arguments: `{"k":1}`})
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("r1"))
	})
})
