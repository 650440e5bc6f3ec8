package wire_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("an endpoint of the Messages API beside its model calls", func() {
	It("gets a 404 in the API's error shape saying the agent must not call it under agentsnap, not to point the SDK elsewhere", func(ctx SpecContext) {
		h, _, url := serveWire(sayDriver)
		want := "wire: POST /v1/messages/batches is not a model call agentsnap serves (it serves "
		advice := "); it is an endpoint of Anthropic Messages (POST /v1/messages) beside its model calls, which a recording does not hold: have the agent not call it while it runs under agentsnap"

		client := sdk.NewClient(sdkoption.WithBaseURL(url), sdkoption.WithAPIKey(claudeAgentKey), sdkoption.WithMaxRetries(0))
		_, err := client.Messages.Batches.New(ctx, sdk.MessageBatchNewParams{Requests: []sdk.MessageBatchNewParamsRequest{{CustomID: "one",
			Params: sdk.MessageBatchNewParamsRequestParams{Model: claudeModel, MaxTokens: 16, Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))}}}}})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
		Expect(apiErr.RawJSON()).To(And(HavePrefix(`{"type":"error","error":{"type":"not_found_error","message":"`+want), ContainSubstring(advice)))

		resp, err := http.Post(url+"/v1/embeddings", "application/json", strings.NewReader(`{}`))
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(string(b)).To(ContainSubstring("; point the agent's SDK at one of those APIs"), "a path of no API served")

		Expect(h.Close(context.Background())).To(MatchError(And(ContainSubstring(want), ContainSubstring(advice))))
	})
})

var _ = Describe("a Messages call on a base URL without /v1", func() {
	It("gets a 404 in the API's error shape saying to give a client that adds only /messages the base URL with /v1", func() {
		h, _, url := serveWire(sayDriver)
		want := "wire: POST /messages is not a model call agentsnap serves (it serves "
		advice := "); it looks like a call of Anthropic Messages (POST /v1/messages) on a base URL without /v1: a client that adds only /messages, as the Vercel AI SDK's @ai-sdk/anthropic does, takes the base URL with /v1"

		// What @ai-sdk/anthropic sends given the origin instead of the URL with /v1.
		resp, err := http.Post(url+"/messages", "application/json", strings.NewReader(`{"model":"claude","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"stream":true}`))
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(b)).To(And(HavePrefix(`{"type":"error","error":{"type":"not_found_error","message":"`+want), ContainSubstring(advice)))
		Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(advice)))
	})
})
