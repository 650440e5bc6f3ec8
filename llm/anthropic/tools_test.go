package anthropic_test

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// aiSDKBody is the first request of the Vercel AI SDK's Anthropic provider
// (@ai-sdk/anthropic 4.0.105) for a streamText call with one tool, as it
// sends it: every function tool with eager_input_streaming (its default),
// this one with a cache breakpoint (providerOptions.anthropic.cacheControl)
// and strict.
const aiSDKBody = `{"model":"claude-sonnet-4-5","max_tokens":64000,` +
	`"system":[{"type":"text","text":"You research one release."}],` +
	`"messages":[{"role":"user","content":[{"type":"text","text":"What shipped in v2.4?"}]}],` +
	`"tools":[{"name":"release_notes","description":"The release notes of one version.",` +
	`"input_schema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"version":{"type":"string"}},"required":["version"],"additionalProperties":false},` +
	`"cache_control":{"type":"ephemeral"},"eager_input_streaming":true,"strict":true}],` +
	`"tool_choice":{"type":"auto"},"stream":true}`

// aiSDKTools is aiSDKBody's tools as a setting: as sent, without the
// cache_control, members in name order.
const aiSDKTools = `[{"description":"The release notes of one version.","eager_input_streaming":true,` +
	`"input_schema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"version":{"type":"string"}},"required":["version"],"additionalProperties":false},` +
	`"name":"release_notes","strict":true}]`

var _ = Describe("tools that say more than a name, a description and a schema", func() {
	It("are a setting: the Vercel AI SDK's eager_input_streaming and strict kept, the cache_control left to the breakpoints", func() {
		call, err := anthropic.DecodeRequest([]byte(aiSDKBody))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Tools).To(HaveLen(1))
		Expect(call.Tools[0].Name).To(Equal("release_notes"))
		Expect(string(call.ToolsSetting)).To(MatchJSON(aiSDKTools))
		Expect(string(call.ToolsSetting)).NotTo(ContainSubstring("cache_control"), "a breakpoint is not recorded")

		By("read against the last request, the next one keeps them too")
		d, err := anthropic.DecodeNext(nil, []byte(aiSDKBody))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(aiSDKBody, `"}]}],"tools"`, `"}]},{"role":"assistant","content":[{"type":"text","text":"SSO."}]},{"role":"user","content":[{"type":"text","text":"More?"}]}],"tools"`, 1)
		d, err = anthropic.DecodeNext(d, []byte(next))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(1))
		Expect(string(d.Call.ToolsSetting)).To(MatchJSON(aiSDKTools))
		changed := strings.Replace(next, `"eager_input_streaming":true`, `"eager_input_streaming":false`, 1)
		d, err = anthropic.DecodeNext(d, []byte(changed))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(d.Call.ToolsSetting)).To(ContainSubstring(`"eager_input_streaming":false`))
	})

	It("are none for tools of a name, a description, a schema and a breakpoint alone, as the official SDKs send them", func() {
		plain := strings.Replace(aiSDKBody, `,"eager_input_streaming":true,"strict":true`, ``, 1)
		call, err := anthropic.DecodeRequest([]byte(plain))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.ToolsSetting).To(BeNil())
		Expect(call.Cache).NotTo(BeNil())
	})

	It("reach a live model as the agent sent them, each breakpoint where it was", func(ctx SpecContext) {
		call, err := anthropic.DecodeRequest([]byte(aiSDKBody))
		Expect(err).NotTo(HaveOccurred())
		p := newProvider(streaming(msgStart, msgStop))
		d := newDriver(p)
		req := userRequest("What shipped in v2.4?")
		req.API, req.Tools = anthropic.API, call.Tools
		req.Settings = json.RawMessage(`{"max_tokens":64000,"tool_choice":{"type":"auto"},"tools":` + string(call.ToolsSetting) + `}`)
		req.Forward = &anthropic.Forward{Cache: call.Cache}
		collect(ctx, d, req)
		var sent struct{ Tools []map[string]any }
		Expect(json.Unmarshal(p.Requests()[0].Body, &sent)).To(Succeed())
		var want struct{ Tools []map[string]any }
		Expect(json.Unmarshal([]byte(aiSDKBody), &want)).To(Succeed())
		Expect(sent.Tools).To(Equal(want.Tools))

		By("a call of another API sends the specs alone")
		other := userRequest("What shipped in v2.4?")
		other.API, other.Tools, other.Settings = "openai-chat", call.Tools, req.Settings
		collect(ctx, d, other)
		var specs struct{ Tools []map[string]any }
		Expect(json.Unmarshal(p.Requests()[1].Body, &specs)).To(Succeed())
		Expect(specs.Tools).To(HaveLen(1))
		Expect(specs.Tools[0]).To(HaveKey("input_schema"))
		Expect(specs.Tools[0]).NotTo(HaveKey("eager_input_streaming"))
	})
})
