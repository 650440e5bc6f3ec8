package wire_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// aiSDKMessages is a request of the Vercel AI SDK's Anthropic provider
// (@ai-sdk/anthropic 4.0.105), as it sends it: its function tools carry
// eager_input_streaming (the provider's default) and, asked for, strict
// and a cache breakpoint.
const aiSDKMessages = `{"model":"claude-sonnet-4-5","max_tokens":64000,` +
	`"system":[{"type":"text","text":"You research one release."}],` +
	`"messages":[{"role":"user","content":[{"type":"text","text":"What shipped in v2.4?"}]}],` +
	`"tools":[{"name":"release_notes","description":"The release notes of one version.",` +
	`"input_schema":{"type":"object","properties":{"version":{"type":"string"}},"required":["version"],"additionalProperties":false},` +
	`"cache_control":{"type":"ephemeral"},"eager_input_streaming":true,"strict":true}],` +
	`"tool_choice":{"type":"auto"},"stream":true}`

var _ = Describe("the Vercel AI SDK's Anthropic tools, through the wire layer", func() {
	It("reach the live model as the agent sent them, and are recorded as a setting without their breakpoint", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &messagesModel{say: func(map[string]any) string { return "SSO login." }}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		drv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-live-key-0123456789"})
		Expect(err).NotTo(HaveOccurred())
		h, store, url := serveWire(drv)
		code, answer := messagesPost(url, aiSDKMessages)
		Expect(code).To(Equal(http.StatusOK), answer)

		var sent struct{ Tools json.RawMessage }
		Expect(json.Unmarshal([]byte(aiSDKMessages), &sent)).To(Succeed())
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		tools, err := json.Marshal(model.bodies[0]["tools"])
		model.mu.Unlock()
		Expect(err).NotTo(HaveOccurred())
		Expect(tools).To(MatchJSON(sent.Tools), "eager_input_streaming, strict and the breakpoint, as sent")

		Expect(h.Close(context.Background())).To(Succeed())
		log, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		var header session.RequestHeaderData
		for _, e := range log.Events {
			if e.Type == session.TypeRequestHeader {
				Expect(json.Unmarshal(e.Data, &header)).To(Succeed())
			}
		}
		Expect(header.ToolNames).To(Equal([]string{"release_notes"}))
		var set map[string]json.RawMessage
		Expect(json.Unmarshal(header.Settings, &set)).To(Succeed())
		Expect(set).To(HaveKey("tools"), "a change to them is drift")
		Expect(string(set["tools"])).To(ContainSubstring(`"eager_input_streaming":true`))
		Expect(string(set["tools"])).To(ContainSubstring(`"strict":true`))
		Expect(string(header.Settings)).NotTo(ContainSubstring("cache_control"), "a breakpoint is not recorded")
	})

	It("leave the settings alone when they are a name, a description, a schema and a breakpoint, as the official SDKs send them", func() {
		drv := &capturing{}
		h, _, url := serveWire(drv)
		plain := strings.Replace(aiSDKMessages, `,"eager_input_streaming":true,"strict":true`, ``, 1)
		code, answer := messagesPost(url, plain)
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(h.Close(context.Background())).To(Succeed())
		Expect(drv.requests).To(HaveLen(1))
		Expect(drv.requests[0].Settings).To(MatchJSON(`{"max_tokens":64000,"tool_choice":{"type":"auto"}}`))
	})
})
