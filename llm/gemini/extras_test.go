package gemini_test

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// nonBlocking is a request of google.golang.org/genai that sends back the
// responses to a NON_BLOCKING function's call as the SDK writes a
// FunctionResponse with WillContinue and Scheduling: one that says more
// will come, then the last, which the model is to take silently.
func nonBlocking(first, last string) string {
	return `{"contents":[{"parts":[{"text":"Watch the deploy."}],"role":"user"},` +
		`{"parts":[{"functionCall":{"id":"c1","name":"watch","args":{}}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"id":"c1","name":"watch","response":{"output":"started"}` + first + `}}],"role":"user"},` +
		`{"parts":[{"functionResponse":{"id":"c1","name":"watch","response":{"output":"done"}` + last + `}}],"role":"user"}],"generationConfig":{}}`
}

// functionResponses returns each functionResponse of body, a
// generateContent request, as its members.
func functionResponses(body []byte) []map[string]json.RawMessage {
	GinkgoHelper()
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse map[string]json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	Expect(json.Unmarshal(body, &req)).To(Succeed())
	var out []map[string]json.RawMessage
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, p.FunctionResponse)
			}
		}
	}
	return out
}

var _ = Describe("a function response's willContinue and scheduling (a non-blocking function's)", func() {
	const (
		more   = `,"willContinue":true`
		silent = `,"willContinue":false,"scheduling":"SILENT"`
	)

	It("are recorded in the tool result's meta, by either reader, and a change in them is another message", func() {
		body := nonBlocking(more, silent)
		call, err := gemini.DecodeRequest([]byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages[2].Content[0].Meta).To(MatchJSON(`{"gemini":{"willContinue":true}}`))
		Expect(call.Messages[3].Content[0].Meta).To(MatchJSON(`{"gemini":{"scheduling":"SILENT","willContinue":false}}`))
		Expect(call.Messages[3].Content[0].Content).To(Equal([]session.Part{text("done")}), "the text as without them")

		By("encoding/json, for a body the hand reader leaves to it, reads the same")
		std, err := gemini.DecodeRequest([]byte(strings.Replace(body, `"generationConfig":{}`, `"generationConfig":{},"Tools":null`, 1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(std.Messages).To(Equal(call.Messages))

		other, err := gemini.DecodeRequest([]byte(nonBlocking(more, `,"willContinue":false,"scheduling":"INTERRUPT"`)))
		Expect(err).NotTo(HaveOccurred())
		Expect(other.Messages[3]).NotTo(Equal(call.Messages[3]))

		none, err := gemini.DecodeRequest([]byte(nonBlocking(`,"willContinue":null`, "")))
		Expect(err).NotTo(HaveOccurred())
		Expect(none.Messages[2].Content[0].Meta).To(BeNil(), "null and absent say nothing")
		Expect(none.Messages[3].Content[0].Meta).To(BeNil())
	})

	It("are kept for the earlier results when the next request is read against the last", func() {
		d, err := gemini.DecodeNext(nil, []byte(nonBlocking(more, silent)))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(nonBlocking(more, silent), `],"generationConfig"`, `,{"parts":[{"text":"Deployed."}],"role":"model"},{"parts":[{"text":"Thanks."}],"role":"user"}],"generationConfig"`, 1)
		d, err = gemini.DecodeNext(d, []byte(next))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(4))
		Expect(d.Call.Messages[3].Content[0].Meta).To(MatchJSON(`{"gemini":{"scheduling":"SILENT","willContinue":false}}`))
	})

	It("reach a live model of the API as the agent sent them, and none where it sent none", func() {
		call, err := gemini.DecodeRequest([]byte(nonBlocking(more, silent)))
		Expect(err).NotTo(HaveOccurred())
		sent := functionResponses(encodeCall(call, &gemini.Forward{Responses: call.Responses}))
		Expect(sent).To(HaveLen(2))
		Expect(sent[0]).To(HaveKeyWithValue("willContinue", json.RawMessage(`true`)))
		Expect(sent[0]).NotTo(HaveKey("scheduling"))
		Expect(sent[1]).To(HaveKeyWithValue("willContinue", json.RawMessage(`false`)))
		Expect(sent[1]).To(HaveKeyWithValue("scheduling", json.RawMessage(`"SILENT"`)))

		plain, err := gemini.DecodeRequest([]byte(nonBlocking("", "")))
		Expect(err).NotTo(HaveOccurred())
		for _, fr := range functionResponses(encodeCall(plain, nil)) {
			Expect(fr).NotTo(HaveKey("willContinue"))
			Expect(fr).NotTo(HaveKey("scheduling"))
		}
	})
})
