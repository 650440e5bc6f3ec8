package openai_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// agentsChatBody is the first request of the OpenAI Agents SDK for
// JavaScript (@openai/agents-openai, setOpenAIAPI('chat_completions')) for
// an agent with one tool, as it sends it: tool() makes every function tool
// strict unless told otherwise, and the converter sends strict on each.
const agentsChatBody = `{"model":"gpt-4.1-mini","messages":[{"content":"You run the release desk.","role":"system"},` +
	`{"role":"user","content":"What shipped in v2.4?"}],` +
	`"tools":[{"type":"function","function":{"name":"research","description":"Ask a researcher about one release.",` +
	`"parameters":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"},` +
	`"strict":true}}],"stream":true,"stream_options":{"include_usage":true}}`

// agentsChatTools is agentsChatBody's tools, as sent.
const agentsChatTools = `[{"type":"function","function":{"name":"research","description":"Ask a researcher about one release.",` +
	`"parameters":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"},` +
	`"strict":true}}]`

var _ = Describe("Chat Completions tools that say more than a name, a description and parameters", func() {
	It("are a setting: the Agents SDK's strict kept, as sent", func() {
		call, err := openai.DecodeRequest([]byte(agentsChatBody))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Tools).To(HaveLen(1))
		Expect(call.Tools[0].Name).To(Equal("research"))
		Expect(string(call.ToolsSetting)).To(MatchJSON(agentsChatTools))

		By("read against the last request, the next one keeps them, and a change shows")
		d, err := openai.DecodeNext(nil, []byte(agentsChatBody))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(agentsChatBody, `"}],"tools"`, `"},{"role":"assistant","content":"SSO."},{"role":"user","content":"More?"}],"tools"`, 1)
		d, err = openai.DecodeNext(d, []byte(next))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(1))
		Expect(string(d.Call.ToolsSetting)).To(MatchJSON(agentsChatTools))
		changed := strings.Replace(next, `"strict":true`, `"strict":false`, 1)
		d, err = openai.DecodeNext(d, []byte(changed))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(d.Call.ToolsSetting)).To(ContainSubstring(`"strict":false`))
	})

	DescribeTable("say more",
		func(tools string) {
			call, err := openai.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":` + tools + `}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(call.ToolsSetting)).To(MatchJSON(tools))
		},
		Entry("strict: false, as openai-go sends a param.NewOpt(false)", `[{"type":"function","function":{"name":"a","parameters":{},"strict":false}}]`),
		Entry("a member of the tool beside its function", `[{"type":"function","function":{"name":"a"},"cache_control":{"type":"ephemeral"}}]`),
		Entry("a tool of another type", `[{"type":"function","function":{"name":"a"}},{"type":"custom","custom":{"name":"grammar"}}]`),
		Entry("a tool without its type", `[{"function":{"name":"a"}}]`),
		Entry("a name the hand reader leaves to encoding/json", `[{"type":"function","function":{"name":"a","str\u0069ct":true}}]`),
		Entry("a repeated name", `[{"type":"function","function":{"name":"a","name":"b","strict":true}}]`),
	)

	DescribeTable("are no setting when they say a name, a description and parameters alone, as most clients send them",
		func(tools string) {
			call, err := openai.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":` + tools + `}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(call.ToolsSetting).To(BeNil())
		},
		Entry("a function tool", `[{"type":"function","function":{"name":"a","description":"A.","parameters":{"type":"object"}}}]`),
		Entry("null members", `[{"type":"function","function":{"name":"a","description":null,"parameters":null}}]`),
		Entry("escaped names", `[{"typ\u0065":"function","function":{"n\u0061me":"a"}}]`),
		Entry("no tools", `null`),
		Entry("none", `[]`),
	)

	It("of another type than function (custom: a grammar or free text) are no tool spec, read whole or by hand: the setting holds them", func() {
		const tools = `[{"type":"custom","custom":{"name":"apply_patch","description":"Edit files.","format":{"type":"grammar","grammar":{"syntax":"lark","definition":"start: /.+/"}}}},` +
			`{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}},{"function":{"name":"untyped"}},{"type":null,"function":{"name":"null-typed"}}]`
		body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":` + tools + `}`)
		names := func(specs []llm.ToolSpec) (out []string) {
			for _, t := range specs {
				out = append(out, t.Name)
			}
			return out
		}
		call, err := openai.DecodeRequest(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(names(call.Tools)).To(Equal([]string{"lookup", "untyped", "null-typed"}))
		Expect(string(call.ToolsSetting)).To(MatchJSON(tools))

		By("encoding/json's reader, which the hand reader must agree with")
		std, _, err := openai.DecodeStd(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(names(std.Tools)).To(Equal([]string{"lookup", "untyped", "null-typed"}))
	})

	It("reach a live model of the API as the agent sent them; a call of another API sends the specs alone", func() {
		call, err := openai.DecodeRequest([]byte(agentsChatBody))
		Expect(err).NotTo(HaveOccurred())
		req := &llm.Request{System: call.System, Messages: call.Messages, Tools: call.Tools, API: openai.API,
			Settings: json.RawMessage(`{"temperature":0.2,"tools":` + string(call.ToolsSetting) + `}`)}
		body, err := openai.Chat{}.Encode(req, "gpt-4.1-mini")
		Expect(err).NotTo(HaveOccurred())
		var sent map[string]json.RawMessage
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(agentsChatTools))
		Expect(string(sent["temperature"])).To(Equal("0.2"))

		req.API = "anthropic-messages"
		body, err = openai.Chat{}.Encode(req, "gpt-4.1-mini")
		Expect(err).NotTo(HaveOccurred())
		sent = nil
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(`[{"type":"function","function":{"name":"research","description":"Ask a researcher about one release.",` +
			`"parameters":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}}}]`))
		Expect(sent).NotTo(HaveKey("temperature"))
	})

	It("leave a call of tools alone that said no more", func() {
		req := &llm.Request{API: openai.API, Messages: []session.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("hi")}}},
			Tools: []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"type":"object"}`)}}, Settings: json.RawMessage(`{"tool_choice":"auto"}`)}
		body, err := openai.Chat{}.Encode(req, "m")
		Expect(err).NotTo(HaveOccurred())
		var sent map[string]json.RawMessage
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(`[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]`))
		Expect(string(sent["tool_choice"])).To(Equal(`"auto"`))
	})
})
