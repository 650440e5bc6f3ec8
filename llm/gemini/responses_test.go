package gemini_test

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// aiSDKResults is a request of the Vercel AI SDK's Google provider
// (@ai-sdk/google 4.0.121) that sends back the results of two calls, as
// it sends them: each functionResponse.response is {"name", "content"},
// or {"name", "error"} for a tool that failed.
const aiSDKResults = `{"generationConfig":{},"contents":[{"role":"user","parts":[{"text":"Compare v2.4 and v2.5."}]},` +
	`{"role":"model","parts":[{"functionCall":{"id":"call_1_1_0","name":"research","args":{"question":"v2.4?"}}},` +
	`{"functionCall":{"id":"call_1_1_1","name":"research","args":{"question":"v2.5?"}}}]},` +
	`{"role":"user","parts":[{"functionResponse":{"id":"call_1_1_0","name":"research","response":{"name":"research","content":"v2.4 added SSO login."}}},` +
	`{"functionResponse":{"id":"call_1_1_1","name":"research","response":{"name":"research","error":"no notes for v2.5"}}}]}],` +
	`"systemInstruction":{"parts":[{"text":"You run the release desk."}]},` +
	`"tools":[{"functionDeclarations":[{"name":"research","description":"Ask a researcher about one release.","parametersJsonSchema":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}}]}],` +
	`"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`

// sentResponses returns the functionResponse.response of each
// functionResponse part in body, a generateContent request.
func sentResponses(body []byte) []json.RawMessage {
	GinkgoHelper()
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct{ Response json.RawMessage } `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	Expect(json.Unmarshal(body, &req)).To(Succeed())
	var out []json.RawMessage
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, p.FunctionResponse.Response)
			}
		}
	}
	return out
}

// encodeCall encodes call as the live driver sends a call of this API,
// with forward as its Forward.
func encodeCall(call *gemini.Call, forward *gemini.Forward) []byte {
	GinkgoHelper()
	set, err := json.Marshal(call.Settings)
	Expect(err).NotTo(HaveOccurred())
	req := &llm.Request{System: call.System, Messages: call.Messages, Tools: call.Tools, API: gemini.API, Settings: set}
	if forward != nil {
		req.Forward = forward
	}
	body, err := gemini.GenerateContent{}.Encode(req, "gemini-2.5-flash")
	Expect(err).NotTo(HaveOccurred())
	return body
}

var _ = Describe("an agent's function responses, sent to a live model", func() {
	It("go as the agent sent them (the AI SDK's name and content), while the tool results stay their text", func() {
		call, err := gemini.DecodeRequest([]byte(aiSDKResults))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages[2:]).To(Equal([]session.Message{
			result("call_1_1_0", "research", `{"content":"v2.4 added SSO login.","name":"research"}`, false),
			result("call_1_1_1", "research", `{"error":"no notes for v2.5","name":"research"}`, true),
		}), "recorded as the response, in canonical JSON: it holds more than an output or an error")

		sent := sentResponses(encodeCall(call, &gemini.Forward{Media: call.Media, Responses: call.Responses}))
		Expect(sent).To(HaveLen(2))
		Expect(string(sent[0])).To(MatchJSON(`{"name":"research","content":"v2.4 added SSO login."}`))
		Expect(string(sent[1])).To(MatchJSON(`{"name":"research","error":"no notes for v2.5"}`))

		By("a call without them, of another runtime, sends each result's text")
		sent = sentResponses(encodeCall(call, nil))
		Expect(string(sent[0])).To(MatchJSON(`{"output":"{\"content\":\"v2.4 added SSO login.\",\"name\":\"research\"}"}`))
		Expect(string(sent[1])).To(MatchJSON(`{"error":"{\"error\":\"no notes for v2.5\",\"name\":\"research\"}"}`))
	})

	It("keep none the driver would send the same: genai's {\"output\": text}", func() {
		call, err := gemini.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"Go."}]},` +
			`{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"A"}}}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Responses).To(BeNil())
	})

	It("of an output beside other members are recorded whole, so a change in another member shows, and go as sent", func() {
		body := func(source string) string {
			return `{"contents":[{"role":"user","parts":[{"text":"Go."}]},` +
				`{"role":"model","parts":[{"functionCall":{"id":"c1","name":"lookup","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"lookup","response":{"output":"v2.4.1","source":"` + source + `"}}}]}]}`
		}
		call, err := gemini.DecodeRequest([]byte(body("notes")))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages[2]).To(Equal(result("c1", "lookup", `{"output":"v2.4.1","source":"notes"}`, false)))
		sent := sentResponses(encodeCall(call, &gemini.Forward{Responses: call.Responses}))
		Expect(string(sent[0])).To(MatchJSON(`{"output":"v2.4.1","source":"notes"}`))

		other, err := gemini.DecodeRequest([]byte(body("wiki")))
		Expect(err).NotTo(HaveOccurred())
		Expect(other.Messages[2]).NotTo(Equal(call.Messages[2]), "another source is another result")
	})

	It("are kept for the earlier results when the next request is read against the last", func() {
		d, err := gemini.DecodeNext(nil, []byte(aiSDKResults))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(aiSDKResults, `"no notes for v2.5"}}}]}]`,
			`"no notes for v2.5"}}}]},{"role":"model","parts":[{"text":"v2.4 has SSO."}]},{"role":"user","parts":[{"text":"Thanks."}]}]`, 1)
		d, err = gemini.DecodeNext(d, []byte(next))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(4))
		sent := sentResponses(encodeCall(d.Call, &gemini.Forward{Responses: d.Call.Responses}))
		Expect(string(sent[0])).To(MatchJSON(`{"name":"research","content":"v2.4 added SSO login."}`))
		Expect(string(sent[1])).To(MatchJSON(`{"name":"research","error":"no notes for v2.5"}`))
	})
})
