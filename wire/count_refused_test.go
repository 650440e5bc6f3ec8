package wire_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/apis"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A token count the recording's model driver refuses before sending
// anything is the agent's 400 saying what to do: a 5xx would have its SDK
// send the count again, in vain, and read "the model did not count".
var _ = Describe("a token count the recording's live model cannot send", func() {
	var hits atomic.Int64 // requests that reached the live endpoint
	var endpoint string
	BeforeEach(func() {
		hits.Store(0)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			http.Error(w, "not expected", http.StatusTeapot)
		}))
		DeferCleanup(srv.Close)
		endpoint = srv.URL
	})

	// count has an Anthropic SDK agent that retries 5xx as the SDK does by
	// default count one request through a handler on drv, and returns the
	// error and how many requests reached the handler.
	count := func(ctx SpecContext, drv llm.Driver, model string) (*sdk.Error, int64) {
		GinkgoHelper()
		h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New()})
		Expect(err).NotTo(HaveOccurred())
		var asked atomic.Int64
		rt := wire.Transport(h)
		client := sdk.NewClient(sdkoption.WithBaseURL("http://agentsnap.invalid"), sdkoption.WithAPIKey(claudeAgentKey), sdkoption.WithMaxRetries(2),
			sdkoption.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				asked.Add(1)
				return rt.RoundTrip(r)
			})}))
		_, err = client.Messages.CountTokens(ctx, sdk.MessageCountTokensParams{Model: sdk.Model(model), Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("How long is this?"))}})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(hits.Load()).To(BeZero(), "nothing reaches the live endpoint")
		return apiErr, asked.Load()
	}

	It("is a 400 saying so when the live model's API has no token counting endpoint (a Chat Completions model behind an Anthropic agent)", func(ctx SpecContext) {
		drv, err := openai.New(openai.Config{BaseURL: endpoint + "/v1", APIKey: "sk-chat-key-0123456789", Model: "gpt-test"})
		Expect(err).NotTo(HaveOccurred())
		apiErr, asked := count(ctx, drv, claudeModel)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(asked).To(Equal(int64(1)), "a 4xx is not retried")
		Expect(apiErr.Error()).To(And(ContainSubstring("POST /v1/messages/count_tokens of session root"), ContainSubstring("the API openai-chat has no token counting endpoint"),
			ContainSubstring("needs a model driver that counts (a live model of its API: agentsnap record --live")))
		Expect(apiErr.Error()).NotTo(ContainSubstring("the model did not count"))
	})

	It("is a 400 naming what is missing when no model is named, or the API's key is not set", func(ctx SpecContext) {
		noModel, err := anthropic.New(anthropic.Config{BaseURL: endpoint, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		apiErr, asked := count(ctx, noModel, "")
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(asked).To(Equal(int64(1)))
		Expect(apiErr.Error()).To(And(ContainSubstring("could not be sent to the model"), ContainSubstring("no model"), ContainSubstring("set Config.Model or Request.Model")))

		onlyChat := func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "sk-chat-key-0123456789"
			}
			return ""
		}
		router, err := apis.NewRouter("", live.Config{BaseURL: endpoint}, onlyChat)
		Expect(err).NotTo(HaveOccurred())
		apiErr, asked = count(ctx, router, claudeModel)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(asked).To(Equal(int64(1)))
		Expect(apiErr.Error()).To(ContainSubstring("a live recording of Anthropic Messages needs an API key: set AGENTSNAP_API_KEY, or ANTHROPIC_API_KEY"))
	})
})

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
