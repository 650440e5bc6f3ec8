package fakellm_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A runtime serves a call that names no session as the root's: a
// subagent whose calls were not given its session (an SDK agent's child
// whose HTTP client or context lacks it) reaches the root's script.
var _ = Describe("Driver diagnostics of a root call that does not go on from the root's conversation", func() {
	const lineage = `this call does not go on from the root's conversation (%s): it looks like a subagent's call made without the child's lineage, served from the root's script, which a re-recording does not mend; ` +
		`name the child's session on its calls (README, "An agent on an SDK: swap its HTTP client": wire.Spawn or wire.Fork on the child's context; behind agentsnap serve, the Agentsnap-* headers); else `
	ask := func(drv *fakellm.Driver, turn, step int, system, first string) error {
		req := &llm.Request{Session: lRoot, Turn: turn, Step: step, Attempt: 1, System: system,
			Messages: []session.Message{{Role: session.RoleUser, Content: []session.Part{{Type: session.PartText, Text: first}}}}}
		seq, err := drv.Stream(context.Background(), req)
		if err == nil {
			for range seq {
			}
		}
		return err
	}

	It("says so when the root's script runs out, naming the system prompt that differs", func() {
		drv := newTree()
		Expect(ask(drv, 1, 1, "You plan trips.", "Plan a trip.")).To(Succeed())
		Expect(ask(drv, 2, 1, "You plan trips.", "Plan a trip.")).To(Succeed())
		Expect(ask(drv, 2, 2, "You plan trips.", "Plan a trip.")).To(Succeed())
		err := ask(drv, 3, 1, "You find hotels.", "Find hotels.")
		Expect(err).To(MatchError(fakellm.ErrScriptExhausted))
		Expect(err.Error()).To(Equal(`fakellm: script exhausted: session root (session.jsonl): asked for call 4, recorded 3 (live call at turn 3 step 1) — ` +
			fmt.Sprintf(lineage, `its system prompt is "You find hotels.", the root's last call's "You plan trips."`) +
			`the agent made more model calls than the recording; re-record with: agentsnap record fixtures/mixed/tree`))
	})

	It("says so when the call is not on the root's path, naming the first message that differs", func() {
		drv := newTree()
		Expect(ask(drv, 1, 1, "You help.", "Plan a trip.")).To(Succeed())
		err := ask(drv, 1, 2, "You help.", "Find hotels.")
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
		Expect(err.Error()).To(ContainSubstring(`(2 of 3) was at turn 2 step 1 — ` +
			fmt.Sprintf(lineage, `its first message is user "Find hotels.", the root's last call's user "Plan a trip."`) + "the agent took another path; "))
	})

	It("says nothing of lineage when the call goes on from the root's conversation", func() {
		drv := newTree()
		Expect(ask(drv, 1, 1, "You plan trips.", "Plan a trip.")).To(Succeed())
		err := ask(drv, 1, 2, "You plan trips.", "Plan a trip.")
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
		Expect(err.Error()).To(ContainSubstring("— the agent took another path; "))
		Expect(err.Error()).NotTo(ContainSubstring("lineage"))
	})
})
