package sdkagent_test

import (
	"context"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sums is an answer asking for one calculation.
func sums(id string) liveAnswer {
	return liveAnswer{calls: []liveCall{{id, "calculator", `{"expression":"1+1"}`}}}
}

var _ = Describe("the model calls of one turn", func() {
	It("may number 16 when Agent.MaxSteps is not set", func() {
		var answers []liveAnswer
		for range 15 {
			answers = append(answers, sums("call_sum"))
		}
		e := &endpoint{answers: append(answers, liveAnswer{text: "2, fifteen times."})}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		Expect(newAgent(srv).NewSession().Send(context.Background(), "Add.")).To(Equal("2, fifteen times."))
		Expect(e.requests()).To(HaveLen(16))
	})

	It("stop at Agent.MaxSteps with an error saying what to raise", func() {
		e := &endpoint{answers: []liveAnswer{sums("call_1"), sums("call_2"), sums("call_3"), {text: "too late"}}}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		a := newAgent(srv)
		a.MaxSteps = 2
		_, err := a.NewSession().Send(context.Background(), "Add.")
		Expect(err).To(MatchError(ContainSubstring("the turn made 2 model calls without a final answer; raise Agent.MaxSteps")))
		Expect(e.requests()).To(HaveLen(2))
	})
})

var _ = Describe("an endpoint whose answer has no choices", func() {
	DescribeTable("fails the call, saying what to check, instead of panicking",
		func(whole bool, body, want string) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if whole {
					w.Header().Set("Content-Type", "application/json")
				} else {
					w.Header().Set("Content-Type", "text/event-stream")
				}
				_, _ = w.Write([]byte(body))
			}))
			DeferCleanup(srv.Close)
			a := newAgent(srv)
			a.WholeAnswers = whole
			_, err := a.NewSession().Send(context.Background(), "Hi.")
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a whole answer", true, `{"id":"x","object":"chat.completion","model":"m","choices":[]}`,
			"the answer has no choices; check the endpoint speaks Chat Completions"),
		Entry("a stream", false, "data: [DONE]\n\n",
			"the stream ended without an answer; check the endpoint speaks Chat Completions streaming, or set Agent.WholeAnswers"),
	)
})
