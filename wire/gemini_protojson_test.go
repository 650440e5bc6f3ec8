package wire_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// What langchaingo's googleai (v0.1.14, on generative-ai-go v0.15.1 and
// its REST client generated from the API's protos) sends, byte for byte
// but for fewer tools: every call, streamed or not, to
// streamGenerateContent with $alt=json;enum-encoding=int, enums as
// numbers, the model in the body too, the system instruction with role
// "system"; and the answer's calls sent back without the ids the answer
// gave them (the client's FunctionCall has no id), one model content per
// call, each followed by its result, which names no id either.
const (
	protoPath   = "/v1beta/models/gemini-x:streamGenerateContent?%24alt=json%3Benum-encoding%3Dint"
	protoBefore = `{"model":"models/gemini-x","systemInstruction":{"parts":[{"text":"Be brief."}],"role":"system"},"contents":[{"parts":[{"text":"Check billing and search."}],"role":"user"}`
	protoAfter  = `],"tools":[{"functionDeclarations":[{"name":"service_status","description":"The current status of one service.","parameters":{"type":6,"properties":{"service":{"type":1,"description":"auth, billing, checkout or search"}},"required":["service"]}}]}],"safetySettings":[{"category":10,"threshold":3},{"category":7,"threshold":3}],"generationConfig":{"candidateCount":1,"maxOutputTokens":2048,"temperature":0.2,"topP":0.95,"topK":3}}`
	protoCall1  = `,{"parts":[{"functionCall":{"name":"service_status","args":{"service":"billing"}}}],"role":"model"},{"parts":[{"functionResponse":{"name":"service_status","response":{"response":"billing: degraded"}}}],"role":"user"}`
	protoCall2  = `,{"parts":[{"functionCall":{"name":"service_status","args":{"service":"search"}}}],"role":"model"},{"parts":[{"functionResponse":{"name":"service_status","response":{"response":"search: operational"}}}],"role":"user"}`
)

func protoBody(contents ...string) string {
	return protoBefore + strings.Join(contents, "") + protoAfter
}

var _ = Describe("the Gemini format for a client generated from the API's protos (langchaingo's googleai)", func() {
	It("answers a stream asked for without alt=sse as the API does: the responses of the event stream as one JSON array", func() {
		answers := func() *scripted {
			return script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "service_status", `{"service":"billing"}`), toolCall("call_b", "service_status", `{"service":"search"}`)}}})
		}
		_, _, url := serveWire(answers())
		resp, err := http.Post(url+protoPath, "application/json", strings.NewReader(protoBody()))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(HavePrefix("application/json"))
		var array []json.RawMessage
		Expect(json.NewDecoder(resp.Body).Decode(&array)).To(Succeed())

		_, _, sseURL := serveWire(answers())
		code, events := postTo(sseURL, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", protoBody())
		Expect(code).To(Equal(http.StatusOK))
		var want []string
		for ev := range strings.SplitSeq(strings.TrimSpace(events), "\n\n") {
			want = append(want, strings.TrimPrefix(ev, "data: "))
		}
		got := make([]string, len(array))
		for i, e := range array {
			got[i] = string(e)
		}
		Expect(got).To(Equal(want))
		Expect(got).To(HaveLen(2))
		Expect(got[1]).To(ContainSubstring(`"finishReason":"STOP"`))
	})

	DescribeTable("refuses a stream in an encoding it does not serve, naming it",
		func(path string) {
			h, _, url := serveWire(sayDriver)
			code, answer := postTo(url, path, protoBody())
			Expect(code).To(Equal(http.StatusBadRequest), answer)
			Expect(answer).To(ContainSubstring("asks for an encoding agentsnap does not serve; ask for server-sent events (alt=sse, as the official SDKs do) or JSON (alt=json)"))
			Expect(h.Close(context.Background())).To(MatchError(ContainSubstring("alt=")))
		},
		Entry("alt=proto", "/v1beta/models/m:streamGenerateContent?alt=proto"),
		Entry("$alt=media", "/v1beta/models/m:streamGenerateContent?%24alt=media"),
	)

	It("pairs calls and results sent back without ids, one call per content, with the answer's calls: by name, in order", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "service_status", `{"service":"billing"}`), toolCall("call_b", "service_status", `{"service":"search"}`)}, "Billing is degraded."}})
		h, store, url := serveWire(drv)
		for _, body := range []string{protoBody(), protoBody(protoCall1, protoCall2)} {
			code, answer := postTo(url, protoPath, body)
			Expect(code).To(Equal(http.StatusOK), answer)
		}
		Expect(rendered(h, store, "root")).To(ContainSubstring(`    result call_a: {"response":"billing: degraded"}
    result call_b: {"response":"search: operational"}
  history replaced: the first message kept, then:
    call  service_status {"service":"billing"}
    result : {"response":"billing: degraded"}
    call  service_status {"service":"search"}
    result : {"response":"search: operational"}
  step 2
    assistant: Billing is degraded.`))
	})

	// Pairing by name is for results that name no id: one that names an
	// id none of the calls has is no call's result, whatever its name.
	It("pairs by name only a result that names no id: a result naming another id leaves its call without one", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "service_status", `{"service":"billing"}`), toolCall("call_b", "service_status", `{"service":"search"}`)}, "Billing is degraded."}})
		h, store, url := serveWire(drv)
		calls := `,{"parts":[{"functionCall":{"id":"call_a","name":"service_status","args":{"service":"billing"}}},{"functionCall":{"id":"call_b","name":"service_status","args":{"service":"search"}}}],"role":"model"}`
		results := `,{"parts":[{"functionResponse":{"id":"call_a","name":"service_status","response":{"response":"billing: degraded"}}},{"functionResponse":{"id":"call_z","name":"service_status","response":{"response":"search: operational"}}}],"role":"user"}`
		for _, body := range []string{protoBody(), protoBody(calls, results)} {
			code, answer := postTo(url, protoPath, body)
			Expect(code).To(Equal(http.StatusOK), answer)
		}
		Expect(rendered(h, store, "root")).To(ContainSubstring(`    result call_a: {"response":"billing: degraded"}
    result call_b (error): agentsnap: the agent's next request sent no result for this call
`))
	})

	It("takes an answer's one call, sent back without its id, for that call: the conversation goes on, not rewritten", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "service_status", `{"service":"billing"}`)}, "Billing is degraded."}})
		h, store, url := serveWire(drv)
		for _, body := range []string{protoBody(), protoBody(protoCall1)} {
			code, answer := postTo(url, protoPath, body)
			Expect(code).To(Equal(http.StatusOK), answer)
		}
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: Check billing and search.
  step 1
    call call_a service_status {"service":"billing"}
    result call_a: {"response":"billing: degraded"}
  step 2
    assistant: Billing is degraded.
  ended completed
`))
	})
})
