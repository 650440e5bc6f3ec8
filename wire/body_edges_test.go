package wire_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a request body that holds no conversation", func() {
	DescribeTable("is answered 400 naming the member the path's API takes it in, and is no call: nothing is recorded, and Close reports it",
		func(path, body, want string) {
			h, store, url := serveWire(sayDriver)
			Expect(refusal(postTo(url, path, body))).To(Equal("wire: POST " + path + ": " + want))
			Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
			headers, err := store.List(context.Background())
			Expect(err).NotTo(HaveOccurred())
			Expect(headers).To(BeEmpty())
		},
		Entry("{} to Chat Completions", "/v1/chat/completions", `{}`, chatNone),
		Entry("a model alone to Chat Completions", "/v1/chat/completions", `{"model":"m","temperature":0}`, chatNone),
		Entry("no message to Chat Completions", "/v1/chat/completions", `{"model":"m","messages":[]}`, chatNone),
		Entry("null to Chat Completions", "/v1/chat/completions", `null`, chatNone),
		Entry("{} to Responses", "/v1/responses", `{}`, `the body is no model call of OpenAI Responses (POST /v1/responses), the API this path is: it has no "input", or no message in it; send the conversation there, at least one message, as that API defines it`),
		Entry("a system prompt alone to Anthropic Messages", "/v1/messages", `{"model":"m","system":"Be terse.","max_tokens":8}`, `the body is no model call of Anthropic Messages (POST /v1/messages), the API this path is: it has no "messages", or no message in it; send the conversation there, at least one message, as that API defines it`),
		Entry("{} to Gemini", "/v1beta/models/m:generateContent", `{}`, `the body is no model call of Gemini (POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse), the API this path is: it has no "contents", or no message in it; send the conversation there, at least one message, as that API defines it`),
	)

	It("is served when it is a system prompt alone in Chat Completions' messages, which that API takes", func() {
		_, _, url := serveWire(sayDriver)
		ok(url, chat(`{"role":"system","content":"Say hi."}`), nil)
	})
})

const chatNone = `the body is no model call of OpenAI Chat Completions (POST /v1/chat/completions), the API this path is: it has no "messages", or no message in it; send the conversation there, at least one message, as that API defines it`
