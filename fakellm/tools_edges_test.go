package fakellm_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// A hand-edited tool/recorded event that lacks what a replay serves it by
// is refused where it is, not served as an empty result or as the drift
// of a tool named "".
var _ = Describe("a tool/recorded event without a member a replay needs", func() {
	recorded := func(data map[string]any) error {
		GinkgoHelper()
		b := rootLog("root")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}})
		b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
		b.chunks(1, 1, 1, answer("a")...)
		b.ev(session.TypeToolRecorded, data)
		b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
		b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		_, err := fakellm.New([]*session.Log{b.log()})
		return err
	}
	full := func() map[string]any {
		return map[string]any{"turn": 1, "step": 1, "callId": "call_0", "name": "lookup", "arguments": `{"k":1}`, "result": map[string]any{"text": "r"}}
	}

	It("derives a complete one", func() {
		Expect(recorded(full())).To(Succeed())
	})

	DescribeTable("names the member missing, the event and what to do",
		func(member string) {
			data := full()
			delete(data, member)
			Expect(recorded(data)).To(MatchError(And(
				ContainSubstring("session root: tool/recorded seq "),
				ContainSubstring(` has no "`+member+`" (it needs callId, name, arguments and result: CONTRACT.md 6a) — re-record the scenario`))))
		},
		Entry("callId", "callId"),
		Entry("name", "name"),
		Entry("arguments", "arguments"),
		Entry("result", "result"),
	)

	// A null reads as nothing too: served, it would be an empty result.
	DescribeTable("takes a member that is null for one that is missing",
		func(member string) {
			data := full()
			data[member] = nil
			Expect(recorded(data)).To(MatchError(ContainSubstring(` has no "` + member + `" (it needs callId, name, arguments and result: CONTRACT.md 6a)`)))
		},
		Entry("name", "name"),
		Entry("arguments", "arguments"),
		Entry("result", "result"),
	)
})

// A session that never asked for its recorded tools leaves a line per
// result; the headline counts it once, as the session it is.
var _ = Describe("the consumption check of recorded tools", func() {
	It("counts the sessions not fully replayed, not the results they left", func() {
		drv, err := fakellm.New([]*session.Log{rootLog("root").toolTurn(1, "a", "r1", 1).toolTurn(2, "b", "r2", 2).log()})
		Expect(err).NotTo(HaveOccurred())
		say(drv, liveRoot("root"), 1, 1)
		say(drv, liveRoot("root"), 2, 1) // every model call; no tool asked for
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(HavePrefix("fakellm: recording not consumed: 1 recorded session not fully replayed — "))
		Expect(strings.Count(err.Error(), "\n  session root (session.jsonl): live session root never")).To(Equal(4), "each result and MCP answer still named")
	})
})
