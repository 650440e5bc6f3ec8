package gemini_test

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

// writtenArray returns the body WriteJSONStream wrote for chunks.
func writtenArray(chunks []session.Chunk) string {
	GinkgoHelper()
	rec := httptest.NewRecorder()
	Expect(gemini.WriteJSONStream(rec, gemini.Answer{Model: "m", ResponseID: "r"}, slices.Values(chunks))).To(Succeed())
	Expect(rec.Header().Get("Content-Type")).To(HavePrefix("application/json"))
	return rec.Body.String()
}

// elements returns the elements of a JSON array, compact.
func elements(body string) []string {
	GinkgoHelper()
	var raw []json.RawMessage
	Expect(json.Unmarshal([]byte(body), &raw)).To(Succeed(), "one JSON array: %s", body)
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	return out
}

var _ = Describe("writing a streamed answer as one JSON array (alt=json, as clients generated from the API's protos ask)", func() {
	It("writes the events of the server-sent stream as its elements, the array closed after the finish", func() {
		chunks := append(streamed(
			session.Part{Type: session.PartText, Text: "Checking."},
			session.Part{Type: session.PartToolCall, ID: "call_a", Name: "lookup", Arguments: `{"key":"a"}`},
			session.Part{Type: session.PartToolCall, ID: "call_b", Name: "lookup", Arguments: `{"key":"b"}`},
		), session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 10, OutputTokens: 7}}, session.Finish(session.FinishToolCalls))
		body := writtenArray(chunks)
		Expect(body).To(Equal("[" + strings.Join(written(chunks), ",\r\n") + "]"))
		Expect(elements(body)).To(HaveLen(4), "the text in two parts, then each call")
	})

	It("closes the array after an error element, as the API does", func() {
		body := writtenArray(append(streamed(text("par")), session.ErrorFinish("RATE_LIMIT", "slow down")))
		Expect(elements(body)).To(Equal([]string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"par"}]},"index":0}],"modelVersion":"m","responseId":"r"}`,
			`{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}`,
		}))
		rec := httptest.NewRecorder()
		err := gemini.WriteJSONStream(rec, gemini.Answer{}, slices.Values(llm.StreamMessage(msg(session.Part{Type: session.PartToolCall, ID: "c1", Name: "f", Arguments: "[1]"}), nil, "")))
		Expect(err).To(MatchError(ContainSubstring("gemini: tool call c1 (f) has arguments that are not a JSON object")))
		Expect(elements(rec.Body.String())).To(ConsistOf(HavePrefix(`{"error":{"code":500,"message":"gemini: tool call c1 (f)`)))
	})

	It("leaves the array open when the call was aborted, as a cut connection does", func() {
		body := writtenArray(append(streamed(text("cut"), text("short")), session.Finish(session.FinishAborted)))
		Expect(body).To(HavePrefix(`[{"candidates":[{"content":{"role":"model","parts":[{"text":"cut"}]}`))
		Expect(body).NotTo(HaveSuffix("]"))
		Expect(json.Valid([]byte(body))).To(BeFalse(), "the client reads a cut stream")
	})
})
