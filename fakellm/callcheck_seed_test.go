package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// A script of a Deriver of one's own carries no note of which
// request/header came before each call, so WithCallCheck shows a call the
// one header of its turn, step and attempt among the session's own events
// — events[seedLength:], never the seed's, which are the requests of the
// session it was forked or resumed from.
var _ = Describe("WithCallCheck with a Deriver of one's own, in a session with a seed", func() {
	// asking appends a request/header of turn 2 step 1 attempt 1.
	asking := func(b *builder, model string) *builder {
		return b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: 2, Step: 1, Attempt: 1, Provider: "p", Model: model})
	}
	// models builds a driver over l whose Deriver of one's own derives
	// entries, calls each entry's turn and step once and returns the model
	// of the request the check was shown for each ("" for none).
	models := func(l *session.Log, entries ...fakellm.Entry) []string {
		GinkgoHelper()
		var seen []string
		own := fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
			return &fakellm.Script{Name: l.Path, Header: l.Header, Entries: entries}, nil
		})
		check := fakellm.WithCallCheck(func(c fakellm.RecordedCall, _ *llm.Request) error {
			model := ""
			if c.Request != nil {
				model = c.Request.Model
			}
			seen = append(seen, model)
			return nil
		})
		drv, err := fakellm.New([]*session.Log{l}, own, check)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			Expect(say(drv, lRoot, e.Turn, e.Step)).To(Equal("OK"))
		}
		return seen
	}
	entry := func(turn int) fakellm.Entry {
		return fakellm.Entry{Kind: fakellm.KindChunks, Turn: turn, Step: 1, Attempt: 1, Chunks: answer("OK")}
	}

	It("counts the headers from the first own event on: the one right after the seed is the call's, the seed's last one of the same call is not", func() {
		// The seed ends right after a header of turn 2 step 1 (a seed a
		// Deriver of one's own may accept), and the own events start with
		// that call's own header: an index one event off either way
		// counts two headers or none, and shows none.
		b := rootLog("resumed").askedTurn(1, "say OK", "model-one", "OK")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 2, Trigger: "user"})
		b.ev(session.TypeStepStart, session.StepData{Turn: 2, Step: 1})
		asking(b, "model-seed")
		b.l.Header.SeedLength = len(b.l.Events)
		asking(b, "model-own")
		b.chunks(2, 1, 1, answer("OK")...)
		Expect(models(b.log(), entry(2))).To(Equal([]string{"model-own"}))
	})

	It("shows none for a call of the seed, which is the parent's, when the script replays the seed", func() {
		// A log that holds only its seed: no own events at all.
		b := rootLog("resumed").askedTurn(1, "say OK", "model-seed", "OK")
		b.l.Header.SeedLength = len(b.l.Events)
		Expect(models(b.log(), entry(1))).To(Equal([]string{""}))
	})
})
