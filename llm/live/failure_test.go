package live_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("ServedFailure", func() {
	fail := func(code string, status int) *session.FinishReason {
		return &session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: code, Message: "m " + code, Status: status}}
	}

	DescribeTable("answers a recorded failure with the status it was recorded with, or the one its code stands for",
		func(r *session.FinishReason, status int, code, message string) {
			s, c, m := live.ServedFailure(r)
			Expect([]any{s, c, m}).To(Equal([]any{status, code, message}))
		},
		Entry("a recorded 503", fail(live.CodeServer, 503), 503, live.CodeServer, "m SERVER"),
		Entry("a recorded 404", fail(live.CodeBadRequest, 404), 404, live.CodeBadRequest, "m BAD_REQUEST"),
		Entry("a recorded 4xx bound, 400, whatever the code", fail(live.CodeProvider, 400), 400, live.CodeProvider, "m PROVIDER"),
		Entry("a recorded 5xx bound, 599, whatever the code", fail(live.CodeAuth, 599), 599, live.CodeAuth, "m AUTH"),
		Entry("a status no error, 399: the code's", fail(live.CodeAuth, 399), http.StatusUnauthorized, live.CodeAuth, "m AUTH"),
		Entry("a status out of range, 600: the code's", fail(live.CodeRateLimit, 600), http.StatusTooManyRequests, live.CodeRateLimit, "m RATE_LIMIT"),
		Entry("AUTH", fail(live.CodeAuth, 0), http.StatusUnauthorized, live.CodeAuth, "m AUTH"),
		Entry("RATE_LIMIT", fail(live.CodeRateLimit, 0), http.StatusTooManyRequests, live.CodeRateLimit, "m RATE_LIMIT"),
		Entry("BAD_REQUEST", fail(live.CodeBadRequest, 0), http.StatusBadRequest, live.CodeBadRequest, "m BAD_REQUEST"),
		Entry("CONTENT_FILTER", fail(live.CodeContentFilter, 0), http.StatusBadRequest, live.CodeContentFilter, "m CONTENT_FILTER"),
		Entry("TRANSPORT", fail(live.CodeTransport, 0), http.StatusInternalServerError, live.CodeTransport, "m TRANSPORT"),
		Entry("no failure recorded", &session.FinishReason{Kind: session.FinishError}, http.StatusInternalServerError, "", "the model call failed"),
	)
})
