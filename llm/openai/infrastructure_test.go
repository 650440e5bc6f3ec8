package openai_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// offlineClient resolves host names without the network: every DNS query
// fails at once, so a lookup ends in a resolver error on any machine.
func offlineClient() *http.Client {
	r := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS server in this test")
	}}
	return &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Resolver: r}).DialContext}}
}

// closedAddress is the base URL of a server that has stopped listening,
// with a token in its query string that no message may repeat.
func closedAddress() string {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL + "/v1?token=query-secret-value"
}

var _ = Describe("infrastructure failures", func() {
	DescribeTable("InfrastructureFailure tells failures of the setup from the model's behaviour",
		func(code string, want bool) {
			Expect(openai.InfrastructureFailure(code)).To(Equal(want))
		},
		Entry(nil, openai.CodeAuth, true),
		Entry(nil, openai.CodeBadRequest, true),
		Entry(nil, openai.CodeServer, true),
		Entry(nil, openai.CodeTransport, true),
		Entry(nil, openai.CodeRateLimit, true),
		Entry(nil, openai.CodeBadStream, true),
		Entry(nil, openai.CodeConsumed, true),
		Entry(nil, openai.CodeContentFilter, false),
		Entry(nil, openai.CodeProvider, false),
		Entry(nil, llm.CodeNoFinish, false),
		Entry(nil, llm.CodeAborted, false),
		Entry("empty", "", false),
	)

	DescribeTable("a call that cannot reach a working model ends with an infrastructure code and says what to check",
		func(ctx SpecContext, driver func() *openai.Driver, code string, status int, says []string) {
			reason := last(collect(ctx, driver(), userRequest("x")))
			Expect(reason.Kind).To(Equal(session.FinishError))
			Expect(reason.Failure.Code).To(Equal(code))
			Expect(reason.Failure.Status).To(Equal(status))
			Expect(openai.InfrastructureFailure(reason.Failure.Code)).To(BeTrue())
			for _, s := range says {
				Expect(reason.Failure.Message).To(ContainSubstring(s))
			}
			noSecrets(reason.Failure.Message)
			Expect(reason.Failure.Message).NotTo(ContainSubstring("query-secret-value"))
			Expect(reason.Failure.Message).NotTo(ContainSubstring("v1/chat/completions"))
		},
		Entry("401", func() *openai.Driver {
			return newDriver(newProvider(failing(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided"}}`)))
		}, openai.CodeAuth, 401, []string{"HTTP 401 Unauthorized: Incorrect API key provided", "check the API key"}),
		Entry("403", func() *openai.Driver {
			return newDriver(newProvider(failing(http.StatusForbidden, `{"error":{"message":"not allowed"}}`)))
		}, openai.CodeAuth, 403, []string{"HTTP 403 Forbidden: not allowed", `check that the API key may use model "test-model"`}),
		Entry("404 for an unknown model", func() *openai.Driver {
			return newDriver(newProvider(failing(http.StatusNotFound,
				`{"error":{"message":"The model `+"`gpt-nope`"+` does not exist","type":"invalid_request_error","code":"model_not_found"}}`)))
		}, openai.CodeBadRequest, 404, []string{"HTTP 404 Not Found: The model `gpt-nope` does not exist",
			`check the model name ("test-model") and that the base URL is the API root`}),
		Entry("404 with a plain-text body, as for a wrong base URL path", func() *openai.Driver {
			return newDriver(newProvider(func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) }))
		}, openai.CodeBadRequest, 404, []string{"HTTP 404 Not Found: 404 page not found", "check the model name", "base URL"}),
		Entry("500 after the driver's retries", func() *openai.Driver {
			return newDriver(newProvider(failing(http.StatusInternalServerError, `{"error":{"message":"boom"}}`)))
		}, openai.CodeServer, 500, []string{"HTTP 500 Internal Server Error: boom (gave up after 3 attempts)"}),
		Entry("connection refused", func() *openai.Driver {
			d, err := openai.New(openai.Config{BaseURL: closedAddress(), Model: "m", APIKey: testKey})
			Expect(err).NotTo(HaveOccurred())
			return d
		}, openai.CodeTransport, 0, []string{"openai: 127.0.0.1:", "refused the connection", "connection refused", "check that the server is running"}),
		Entry("an unresolvable host", func() *openai.Driver {
			d, err := openai.New(openai.Config{BaseURL: "https://api.agentsnap.invalid:8443/v1?token=query-secret-value",
				Model: "m", APIKey: testKey, HTTPClient: offlineClient()})
			Expect(err).NotTo(HaveOccurred())
			return d
		}, openai.CodeTransport, 0, []string{"cannot resolve the host of the base URL (api.agentsnap.invalid:8443)", "check the host name"}),
	)
})
