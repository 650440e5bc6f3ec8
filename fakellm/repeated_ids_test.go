package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// spawnCall is the stream of an answer that spawns one child by call id.
func spawnCall(id string) []session.Chunk {
	return llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{{
		Type: session.PartToolCall, ID: id, Name: "subagent_spawn", Arguments: `{"prompt":"go"}`,
	}}}, nil, "")
}

var _ = Describe("children of a call id the parent reuses in a later step", func() {
	// reused is a root whose steps 1 and 2 of turn 1 both spawn by call_0
	// (a server that numbers ids per response), then answer DONE; child A
	// was created in step 1, child B in step 2. retried: step 1's first
	// attempt streamed call_0 too before it failed, and was retried.
	reused := func(retried bool) []*session.Log {
		root := rootLog("rec-root")
		root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		if retried {
			root.chunks(1, 1, 1, append(spawnCall("call_0")[:2], session.ErrorFinish("NETWORK", "reset"))...)
			root.chunks(1, 1, 2, spawnCall("call_0")...)
		} else {
			root.chunks(1, 1, 0, spawnCall("call_0")...)
		}
		root.chunks(1, 2, 0, spawnCall("call_0")...)
		root.chunks(1, 3, 0, answer("DONE")...)
		root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		a := childLog("session.1.jsonl", "rec-a", root, "call_0", session.ModeSpawn).turn(1, "go", "A")
		b := childLog("session.2.jsonl", "rec-b", root, "call_0", session.ModeSpawn).turn(1, "go", "B")
		b.l.Header.CreatedAt = a.l.Header.CreatedAt + 1
		// Given newest first: creation time, not the order given, decides.
		return []*session.Log{root.log(), b.log(), a.log()}
	}

	DescribeTable("routes each live child to the recorded child its creating step made, even when the earlier one calls later",
		func(retried bool) {
			sched := &asked{}
			drv, err := fakellm.New(reused(retried), fakellm.WithScheduleOf(sched))
			Expect(err).NotTo(HaveOccurred())
			if retried {
				_, err := call(drv, lRoot, 1, 1) // the failed attempt
				Expect(err).NotTo(HaveOccurred())
			}
			say(drv, lRoot, 1, 1)
			say(drv, lRoot, 1, 2)
			// Step 1's child (running in the background) has not called
			// yet when step 2's child of the same id does.
			Expect(say(drv, liveChild("live-x", lRoot.ID, "call_0", session.ModeSpawn), 1, 1)).To(Equal("B"), "created at step 2")
			Expect(say(drv, liveChild("live-y", lRoot.ID, "call_0", session.ModeSpawn), 1, 1)).To(Equal("A"), "created at step 1")
			Expect(say(drv, lRoot, 1, 3)).To(Equal("DONE"))
			Expect(drv.Check()).To(Succeed())
			Expect(sched.sorted()).To(ContainElements("root/call_0 call 1 (4 chunks)", "root/call_0#2 call 1 (4 chunks)"),
				"named by lineage in the order of the parent's calls")
		},
		Entry("one attempt per step", false),
		Entry("a retried step that streamed the id in both attempts", true),
	)
})
