package journal_test

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// runOnce is a ToolReplay that names each call id's first call to run
// (llm.ErrRunTool: the recording holds no output for it) and serves the
// later ones.
type runOnce struct {
	mu    sync.Mutex
	asked map[string]int
}

func (r *runOnce) ReplayTool(_ context.Context, _ llm.SessionRef, call session.ToolRecordedData) (session.ToolOutput, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked[call.CallID]++
	if r.asked[call.CallID] == 1 {
		return session.ToolOutput{}, fmt.Errorf("%w (the recording holds no output for it)", llm.ErrRunTool)
	}
	return session.ToolOutput{Text: "recorded"}, nil
}

func (r *runOnce) ReplayMCP(context.Context, llm.SessionRef, session.MCPCallData) (session.MCPCallData, error) {
	return session.MCPCallData{}, llm.ErrRunTool
}

var _ = Describe("Journal.Replayed of a call the agent abandons", func() {
	var (
		j      *journal.Journal
		replay *runOnce
	)
	BeforeEach(func() {
		replay = &runOnce{asked: map[string]int{}}
		cfg := config(memory.New())
		cfg.ToolReplay = replay
		var err error
		j, err = journal.NewRoot(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		j.StartTurn(journal.TriggerUser, journal.UserText("look it up"))
	})
	// abandoned makes a step whose call_a Replayed names to run, and
	// whose tool never returns an output (its context ended, it failed
	// before its result), then ends it as end says.
	abandoned := func(end func()) {
		calls := lookups(j, "call_a")
		_, served, err := j.Replayed(ctx, calls[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(served).To(BeFalse(), "named to run")
		end()
	}
	// again is a later call with the same id (a server that numbers ids
	// per answer): it is asked of the replay, not run because the
	// abandoned one was named to run.
	again := func() {
		calls := lookups(j, "call_a")
		out, err := j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput {
			Fail("the tool ran: the abandoned call's run was taken for this one")
			return session.ToolOutput{}
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(session.ToolOutput{Text: "recorded"}))
		Expect(replay.asked["call_a"]).To(Equal(2))
	}

	It("forgets it at the step's end: a later step's call of the same id asks the replay again", func() {
		abandoned(func() { Expect(j.EndStep(ctx)).To(Succeed()) })
		again()
	})

	It("forgets it at the turn's end: a later turn's call of the same id asks the replay again", func() {
		abandoned(func() {
			Expect(j.EndTurn(ctx, session.EndReason{Kind: session.TurnAborted})).To(Succeed())
			j.StartTurn(journal.TriggerUser, journal.UserText("look it up again"))
		})
		again()
	})

	It("still runs the call it named once its tool returns in the same step, asking nothing more", func() {
		calls := lookups(j, "call_a")
		_, served, err := j.Replayed(ctx, calls[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(served).To(BeFalse())
		out, err := j.Tool(ctx, calls[0], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: "live"} })
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(session.ToolOutput{Text: "live"}))
		Expect(replay.asked["call_a"]).To(Equal(1))
	})
})
