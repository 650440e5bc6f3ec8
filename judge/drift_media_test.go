package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Drift in the images and files a call sends names them, those a tool
// returned (in its result) as well as the user's: an agent that rewrites
// its history (history/replace) with a tool's image made smaller, say.
var _ = Describe("drift in the images a call sends", func() {
	result := func(image string) session.Message {
		return session.Message{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "call_1", Name: "screenshot",
			Content: []session.Part{session.TextPart("the page"), llm.Attach(session.PartImage, "image/png", "", []byte(image))}}}}
	}
	log := func(rewritten session.Message, digest string) []*session.Log {
		GinkgoHelper()
		var events []session.Event
		for _, e := range [][2]any{
			{session.TypeTurnStart, session.TurnStartData{Turn: 1}},
			{session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("look")}}},
			{session.TypeStepStart, session.StepData{Turn: 1, Step: 1}},
			{session.TypeToolResult, session.ToolResultData{Turn: 1, Step: 1, Message: result("the screenshot")}},
			{session.TypeHistoryReplace, session.HistoryReplaceData{Turn: 1, Keep: 1, Messages: []session.Message{rewritten}}},
			{session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: "m",
				MessagesDigest: digest, MessageCount: 2, MessageDigests: []string{"u", digest}}},
		} {
			ev, err := session.NewEvent(e[0].(string), e[1])
			Expect(err).NotTo(HaveOccurred())
			ev.Seq = int64(len(events))
			events = append(events, ev)
		}
		return []*session.Log{{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: events}}
	}

	It("names the image a tool result holds when only it changed", func() {
		o := judge.SettleVerdict(log(result("old"), "a"), log(result("new"), "b"))
		Expect(o.Drift).NotTo(BeNil(), "%s", o.Report())
		Expect(o.Drift.Changes).To(ContainElement(
			"message 2's image changed: [image image/png 3 bytes sha256:cba06b5736fa…] recorded, [image image/png 3 bytes sha256:11507a0e2f5e…] now"))
	})
})
