package gemini_test

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// genaiDeclared is a request of google.golang.org/genai for a
// FunctionDeclaration with a Behavior and a ResponseJsonSchema, as the
// SDK sends it (members in its order, generationConfig: {} with any
// config).
const genaiDeclared = `{"contents":[{"parts":[{"text":"What shipped in v2.4?"}],"role":"user"}],"generationConfig":{},` +
	`"systemInstruction":{"parts":[{"text":"You research one release."}],"role":"user"},` +
	`"tools":[{"functionDeclarations":[{"behavior":"NON_BLOCKING","description":"The release notes of one version.","name":"release_notes",` +
	`"parametersJsonSchema":{"properties":{"version":{"type":"string"}},"required":["version"],"type":"object"},` +
	`"responseJsonSchema":{"properties":{"notes":{"type":"string"}},"type":"object"}}]}]}`

// genaiDeclaredTools is genaiDeclared's tools, as sent.
const genaiDeclaredTools = `[{"functionDeclarations":[{"behavior":"NON_BLOCKING","description":"The release notes of one version.","name":"release_notes",` +
	`"parametersJsonSchema":{"properties":{"version":{"type":"string"}},"required":["version"],"type":"object"},` +
	`"responseJsonSchema":{"properties":{"notes":{"type":"string"}},"type":"object"}}]}]`

var _ = Describe("function declarations that say more than a name, a description and parameters", func() {
	It("make the tools a setting, as sent: genai's behavior and responseJsonSchema kept", func() {
		call, err := gemini.DecodeRequest([]byte(genaiDeclared))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Tools).To(HaveLen(1))
		Expect(call.Tools[0].Name).To(Equal("release_notes"))
		Expect(string(call.Settings["tools"])).To(MatchJSON(genaiDeclaredTools))

		By("read against the last request, the next one keeps them, and a change shows")
		d, err := gemini.DecodeNext(nil, []byte(genaiDeclared))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(genaiDeclared, `"role":"user"}],"generationConfig"`,
			`"role":"user"},{"parts":[{"text":"SSO."}],"role":"model"},{"parts":[{"text":"More?"}],"role":"user"}],"generationConfig"`, 1)
		d, err = gemini.DecodeNext(d, []byte(next))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(1))
		Expect(string(d.Call.Settings["tools"])).To(MatchJSON(genaiDeclaredTools))
		changed := strings.Replace(next, `"NON_BLOCKING"`, `"BLOCKING"`, 1)
		d, err = gemini.DecodeNext(d, []byte(changed))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(d.Call.Settings["tools"])).To(ContainSubstring(`"behavior":"BLOCKING"`))
	})

	DescribeTable("say more",
		func(decl string) {
			tools := `[{"functionDeclarations":[` + decl + `]},{"googleSearch":{}}]`
			call, err := gemini.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":` + tools + `}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(call.Settings["tools"])).To(MatchJSON(tools), "every tool, as sent")
		},
		Entry("behavior", `{"name":"f","behavior":"BLOCKING"}`),
		Entry("response, an OpenAPI schema", `{"name":"f","parameters":{"type":"OBJECT"},"response":{"type":"STRING"}}`),
		Entry("responseJsonSchema", `{"name":"f","responseJsonSchema":{"type":"string"}}`),
		Entry("a member in other case", `{"name":"f","Behavior":"BLOCKING"}`),
		Entry("a member the API does not know yet", `{"name":"f","x":1}`),
		Entry("parameters, an OpenAPI schema: its upper-case types, not the JSON Schema the spec holds", `{"name":"f","description":"F.","parameters":{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true}}}}`),
		Entry("parameters of a proto client, its types as enum numbers", `{"name":"f","parameters":{"type":6,"properties":{"s":{"type":1}}}}`),
	)

	It("leave the settings alone when they say a name, a description and a JSON Schema, as most clients send them", func() {
		call, err := gemini.DecodeRequest([]byte(`{"contents":[],"tools":[{"functionDeclarations":[{"name":"f","description":"F.","parametersJsonSchema":{"type":"object"}},` +
			`{"name":"g","parameters":null}]},{"googleSearch":{}}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Tools).To(HaveLen(2))
		Expect(string(call.Settings["tools"])).To(MatchJSON(`[{"googleSearch":{}}]`), "the tools that are not declarations alone")
	})

	It("reach a live model of the API as the agent sent them; a call of another API sends the specs alone", func() {
		call, err := gemini.DecodeRequest([]byte(genaiDeclared))
		Expect(err).NotTo(HaveOccurred())
		set, err := json.Marshal(call.Settings)
		Expect(err).NotTo(HaveOccurred())
		req := &llm.Request{System: call.System, Messages: call.Messages, Tools: call.Tools, API: gemini.API, Settings: set}
		body, err := gemini.GenerateContent{}.Encode(req, "gemini-2.5-flash")
		Expect(err).NotTo(HaveOccurred())
		var sent map[string]json.RawMessage
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(genaiDeclaredTools))

		req.API = "openai-chat"
		body, err = gemini.GenerateContent{}.Encode(req, "gemini-2.5-flash")
		Expect(err).NotTo(HaveOccurred())
		sent = nil
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(`[{"functionDeclarations":[{"name":"release_notes","description":"The release notes of one version.",` +
			`"parametersJsonSchema":{"properties":{"version":{"type":"string"}},"required":["version"],"type":"object"}}]}]`))
	})

	It("send OpenAPI parameters to a live model of the API as the agent sent them, while the spec digests them as a JSON Schema", func() {
		const tools = `[{"functionDeclarations":[{"name":"service_status","description":"One service's status.",` +
			`"parameters":{"type":"OBJECT","properties":{"service":{"type":"STRING","nullable":true}},"required":["service"]}}]}]`
		call, err := gemini.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":` + tools + `}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Tools).To(Equal([]llm.ToolSpec{{Name: "service_status", Description: "One service's status.",
			Parameters: json.RawMessage(`{"properties":{"service":{"type":["string","null"]}},"required":["service"],"type":"object"}`)}}), "the canonical JSON Schema, as before")
		set, err := json.Marshal(call.Settings)
		Expect(err).NotTo(HaveOccurred())
		req := &llm.Request{Messages: call.Messages, Tools: call.Tools, API: gemini.API, Settings: set}
		body, err := gemini.GenerateContent{}.Encode(req, "gemini-2.5-flash")
		Expect(err).NotTo(HaveOccurred())
		var sent map[string]json.RawMessage
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(tools), "parameters as sent, no parametersJsonSchema")
	})

	It("still send the tools beside the declarations after the specs", func() {
		req := &llm.Request{API: gemini.API, Tools: []llm.ToolSpec{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}},
			Settings: json.RawMessage(`{"tools":[{"googleSearch":{}}]}`)}
		body, err := gemini.GenerateContent{}.Encode(req, "gemini-2.5-flash")
		Expect(err).NotTo(HaveOccurred())
		var sent map[string]json.RawMessage
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(string(sent["tools"])).To(MatchJSON(`[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object"}}]},{"googleSearch":{}}]`))
	})
})
