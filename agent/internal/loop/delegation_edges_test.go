package loop_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Guarantees of the reference loop's delegation that mutation testing
// found unguarded.
var _ = Describe("delegation outcomes", func() {
	toolResult := func(l *session.Log, k int) session.Part {
		GinkgoHelper()
		res := decode[session.ToolResultData](eventsOf(l, session.TypeToolResult)[k])
		return res.Message.Content[0]
	}

	It("gives the parent an error result when the child's turn ends aborted, not its partial text", func() {
		d := newScripted().
			calls("root", spawn("c1", "work")).
			chunks("root/c1", []llm.Chunk{{Type: session.ChunkTextDelta, Text: "partial"}, session.Finish(session.FinishAborted)}).
			say("root", "done")
		r := newRig(d)
		_, results, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		res := toolResult(r.log("root"), 0)
		Expect(res.IsError).To(BeTrue())
		Expect(res.Content[0].Text).To(ContainSubstring("turn 1 ended aborted"))
		Expect(results[0].Errors).To(HaveLen(1))
	})

	It("reports every failed child of a step in the turn result, not only the first", func() {
		d := newScripted().calls("root", spawn("c1", "fail"), spawn("c2", "fail too")).say("root", "done")
		r := newRig(d)
		_, results, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(results[0].Errors).To(HaveLen(2))
		Expect(results[0].Errors[0]).To(MatchError(ContainSubstring("root/c1")))
		Expect(results[0].Errors[1]).To(MatchError(ContainSubstring("root/c2")))
	})

	It("refuses a delegation whose prompt is only white space, creating no child", func() {
		d := newScripted().calls("root", spawn("c1", " \t\n ")).say("root", "done")
		r := newRig(d)
		_, _, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		res := toolResult(r.log("root"), 0)
		Expect(res.IsError).To(BeTrue())
		Expect(res.Content[0].Text).To(ContainSubstring("the prompt is empty"))
		headers, err := r.store.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(headers).To(HaveLen(1), "no child session")
	})

	It("answers with the final message's text even when it is empty, not an earlier step's", func() {
		d := newScripted().
			calls("root", session.TextPart("Let me ask a helper."), spawn("c1", "work")).
			say("root/c1", "worked").
			chunks("root", llm.StreamMessage(msg(), nil, ""))
		r := newRig(d)
		_, results, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(results[0].Reason.Kind).To(Equal(session.TurnCompleted))
		Expect(results[0].Text).To(BeEmpty())
	})
})

var _ = Describe("the reference runtime as the runtime under test", func() {
	It("fails the run when a child's model call could not start", func() {
		d := newScripted().calls("root", spawn("c1", "work")).say("root", "done") // no answer for root/c1
		env := &agentsnap.Env{
			Scenario: &scenario.Scenario{Prompts: []string{"go"}, Agent: json.RawMessage(`{"tools":["subagent_spawn"]}`)},
			Driver:   d,
			Store:    memory.New(),
			Clock:    loop.FixedClock(epoch),
		}
		err := loop.Reference.Run(ctx, env)
		Expect(err).To(MatchError(loop.ErrNotStarted))
		Expect(err).To(MatchError(ContainSubstring("subagent")))
	})
})
