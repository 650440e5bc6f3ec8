package fakellm_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// askedTurn appends a user turn of one step whose request/header names
// model, as a runtime writes it.
func (b *builder) askedTurn(turn int, prompt, model, text string) *builder {
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"})
	b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(prompt)}})
	b.ev(session.TypeStepStart, session.StepData{Turn: turn, Step: 1})
	b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: turn, Step: 1, Attempt: 1, Provider: "p", Model: model})
	b.chunks(turn, 1, 1, answer(text)...)
	b.ev(session.TypeAssistantMessage, session.AssistantMessageData{Turn: turn, Step: 1, Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}})
	b.ev(session.TypeStepEnd, session.StepData{Turn: turn, Step: 1})
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
}

var _ = Describe("WithCallCheck", func() {
	refused := errors.New("refused by the check")

	It("shows the check each call's recorded session, number and request; a refusal serves nothing and keeps the cursor", func() {
		root := rootLog("rec-root").askedTurn(1, "say OK", "model-one", "OK").askedTurn(2, "say DONE", "model-two", "DONE")
		var seen []fakellm.RecordedCall
		refuse := true
		drv, err := fakellm.New([]*session.Log{root.log()}, fakellm.WithCallCheck(func(c fakellm.RecordedCall, req *llm.Request) error {
			seen = append(seen, c)
			if refuse && req.Turn == 2 {
				return refused
			}
			return nil
		}))
		Expect(err).NotTo(HaveOccurred())

		Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
		_, err = call(drv, lRoot, 2, 1)
		Expect(err).To(MatchError(refused))
		refuse = false
		Expect(say(drv, lRoot, 2, 1)).To(Equal("DONE"), "the refused call left the cursor at the second entry")

		Expect(seen).To(HaveLen(3))
		Expect(seen[0].Lineage).To(Equal("root"))
		Expect(seen[0].Number).To(Equal(1))
		Expect(seen[0].Request).To(HaveField("Model", "model-one"))
		Expect(textOf(seen[0].Entry.Chunks)).To(Equal("OK"))
		for _, c := range seen[1:] {
			Expect(c.Number).To(Equal(2))
			Expect(c.Request).To(HaveField("Model", "model-two"))
		}
		Expect(drv.Check()).To(MatchError(refused), "the consumption check lists the refusal")
	})

	It("names children by lineage, and gives no request for a log that holds none", func() {
		var seen []fakellm.RecordedCall
		drv := newTree(fakellm.WithCallCheck(func(c fakellm.RecordedCall, _ *llm.Request) error {
			seen = append(seen, c)
			return nil
		}))
		say(drv, lRoot, 1, 1)
		say(drv, lRoot, 2, 1)
		Expect(say(drv, lSpawn, 1, 1)).To(Equal("ALPHA"))
		Expect(say(drv, lGrand, 1, 1)).To(Equal("GAMMA"))
		Expect(seen[2].Lineage).To(Equal("root/call_1"))
		Expect(seen[3].Lineage).To(Equal("root/call_1/call_9"))
		Expect(seen).To(HaveEach(HaveField("Request", BeNil())))
	})

	It("is not asked about a call off the recorded path", func() {
		asked := 0
		drv := newTree(fakellm.WithCallCheck(func(fakellm.RecordedCall, *llm.Request) error { asked++; return nil }))
		_, err := call(drv, lRoot, 2, 1)
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
		Expect(asked).To(Equal(0))
	})
})
