package gemini_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/gemini"
)

// asEncodingJSON expects DecodeContent to read text as json.Unmarshal
// does, the same Content or the same error, and the hand reader to read
// it itself exactly when byHand.
func asEncodingJSON(text string, byHand bool) {
	var want gemini.Content
	wantErr := json.Unmarshal([]byte(text), &want)
	var got gemini.Content
	err := gemini.DecodeContent([]byte(text), &got)
	if wantErr != nil {
		Expect(err).To(MatchError(wantErr.Error()))
	} else {
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(want))
	}
	var fast gemini.Content
	Expect(gemini.FastContent([]byte(text), &fast)).To(Equal(byHand))
}

var _ = Describe("reading one content of a request", func() {
	DescribeTable("reads the shapes agents send by hand, as encoding/json reads them",
		func(text string) { asEncodingJSON(text, true) },
		Entry("user text", `{"role":"user","parts":[{"text":"hi"},{"text":" caf\u00e9"}]}`),
		Entry("a thought and a signature", `{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"a","thoughtSignature":"c2ln"},{"thoughtSignature":"eA=="}]}`),
		Entry("a call with arguments", `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{"k": [1, {"x": null}]}}}]}`),
		Entry("a result", `{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"v"}}}]}`),
		Entry("inline data, kept raw", `{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`),
		Entry("null text, which leaves no text", `{"role":"user","parts":[{"text":null,"thought":null,"functionCall":null}]}`),
		Entry("null arguments, which json.RawMessage keeps", `{"role":"model","parts":[{"functionCall":{"name":"f","args":null}}]}`),
		Entry("null parts and an empty part list", `{"role":null,"parts":null}`),
		Entry("a null part", `{"role":"user","parts":[null,{}]}`),
		Entry("members it does not know", `{"role":"user","x":{"y":[1]},"parts":[{"text":"x","videoMetadata":{}}]}`),
		Entry("deep nesting in the arguments, up to encoding/json's limit", nestedArgs(9996)),
	)

	DescribeTable("leaves anything else to encoding/json",
		func(text string) { asEncodingJSON(text, false) },
		Entry("a name in other case", `{"Role":"user","parts":[]}`),
		Entry("a part's name in other case", `{"role":"user","parts":[{"TEXT":"x"}]}`),
		Entry("a name folded by Unicode", `{"role":"user","parts":[{"thoughtſignature":"x"}]}`),
		Entry("an escaped name", `{"role":"user","parts":[{"te\u0078t":"x"}]}`),
		Entry("a name repeated", `{"role":"user","parts":[{"text":"a","text":"b"}]}`),
		Entry("a bool of another kind", `{"role":"model","parts":[{"thought":"yes"}]}`),
		Entry("text of another kind", `{"role":"user","parts":[{"text":5}]}`),
		Entry("a call that is not an object", `{"role":"model","parts":[{"functionCall":[]}]}`),
		Entry("parts that are not an array", `{"role":"user","parts":{}}`),
		Entry("a part that is not an object", `{"role":"user","parts":["x"]}`),
		Entry("nesting past encoding/json's limit", nestedArgs(9997)),
		Entry("broken JSON", `{"role":"user",}`),
		Entry("text after the content", `{"role":"user"} {}`),
		Entry("null", `null`),
	)
})

// nestedArgs is a model content whose call's arguments nest n arrays deep.
func nestedArgs(n int) string {
	open, closed := make([]byte, n), make([]byte, n)
	for i := range n {
		open[i], closed[i] = '[', ']'
	}
	return `{"role":"model","parts":[{"functionCall":{"name":"f","args":` + string(open) + string(closed) + `}}]}`
}
