package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// retriedTurn appends a user turn of one step whose call failed once and
// was retried, as a dsh v0 log records it: request/header and chunks with
// turn and step but no attempt numbers, each attempt its own header.
func (b *builder) retriedTurn(turn int, prompt, firstModel, retryModel, text string) *builder {
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"})
	b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(prompt)}})
	b.ev(session.TypeStepStart, session.StepData{Turn: turn, Step: 1})
	b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: turn, Step: 1, Provider: "p", Model: firstModel})
	b.chunks(turn, 1, 0, session.ErrorFinish("RATE_LIMIT", "slow down"))
	b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: turn, Step: 1, Provider: "p", Model: retryModel})
	b.chunks(turn, 1, 0, answer(text)...)
	b.ev(session.TypeAssistantMessage, session.AssistantMessageData{Turn: turn, Step: 1, Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}})
	b.ev(session.TypeStepEnd, session.StepData{Turn: turn, Step: 1})
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
}

var _ = Describe("WithCallCheck on a retried call of a log without attempt numbers", func() {
	// models returns the model of the request the check was shown for
	// each call the agent makes at turn 1 step 1 ("" for none) and the
	// text each call got.
	models := func(calls int, opts ...fakellm.Option) (seen, got []string) {
		GinkgoHelper()
		root := rootLog("dsh-root").retriedTurn(1, "say OK", "model-first", "model-retry", "OK")
		check := fakellm.WithCallCheck(func(c fakellm.RecordedCall, _ *llm.Request) error {
			model := ""
			if c.Request != nil {
				model = c.Request.Model
			}
			seen = append(seen, model)
			return nil
		})
		drv, err := fakellm.New([]*session.Log{root.log()}, append(opts, check)...)
		Expect(err).NotTo(HaveOccurred())
		for range calls {
			cs, err := call(drv, lRoot, 1, 1)
			Expect(err).NotTo(HaveOccurred())
			got = append(got, textOf(cs))
		}
		return seen, got
	}

	It("shows each attempt its own recorded request: the retry the header before its chunks, not the first attempt's", func() {
		seen, got := models(2)
		Expect(got).To(Equal([]string{"", "OK"}), "the failed attempt, then the retry")
		Expect(seen).To(Equal([]string{"model-first", "model-retry"}))
	})

	It("shows the acted-on attempt, all that replays of the call, the retry's request", func() {
		seen, got := models(1, fakellm.WithAttempts(fakellm.AttemptsActedOn))
		Expect(got).To(Equal([]string{"OK"}))
		Expect(seen).To(Equal([]string{"model-retry"}))
	})

	It("shows none, rather than one it cannot tell is the call's, when a Deriver of one's own derives the script", func() {
		own := fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
			s, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
			if err != nil {
				return nil, err
			}
			return &fakellm.Script{Name: s.Name, Header: s.Header, Entries: s.Entries}, nil
		})
		seen, _ := models(2, own)
		Expect(seen).To(Equal([]string{"", ""}), "both attempts share turn 1 step 1 and no attempt number")
	})
})
