package wire_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// postJSON posts body to url and returns the answer, expecting a 200.
func postJSON(url, body string) string {
	GinkgoHelper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(b))
	return string(b)
}

var _ = Describe("the id of each answer", func() {
	// An agent may key what it keeps by the answer's id (a cache, a
	// dedupe): each call's answer has its own, derived from the call.
	DescribeTable("is another in each call of a session, streamed or whole",
		func(path string, id *regexp.Regexp, first, second string) {
			_, _, url := serveWire(sayDriver)
			var ids []string
			for _, body := range []string{first, second} {
				m := id.FindStringSubmatch(postJSON(url+path, body))
				Expect(m).To(HaveLen(2), "an answer names its id")
				ids = append(ids, m[1])
			}
			Expect(ids[0]).NotTo(Equal(ids[1]))
		},
		Entry("Anthropic Messages, streamed", "/v1/messages", regexp.MustCompile(`"type":"message_start","message":\{"id":"([^"]+)"`),
			`{"model":"claude","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"claude","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello root"},{"role":"user","content":"again"}]}`),
		Entry("Anthropic Messages, whole", "/v1/messages", regexp.MustCompile(`"id":"([^"]+)"`),
			`{"model":"claude","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"claude","max_tokens":64,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello root"},{"role":"user","content":"again"}]}`),
		Entry("Gemini, streamed", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", regexp.MustCompile(`"responseId":"([^"]+)"`),
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"hello root"}]},{"role":"user","parts":[{"text":"again"}]}]}`),
		Entry("Gemini, whole", "/v1beta/models/gemini-2.5-flash:generateContent", regexp.MustCompile(`"responseId":"([^"]+)"`),
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"hello root"}]},{"role":"user","parts":[{"text":"again"}]}]}`),
	)
})

var _ = Describe("a Responses answer to a request chained by previous_response_id", func() {
	DescribeTable("names the response it continues, as the API does",
		func(stream bool) {
			_, _, url := serveWire(sayDriver)
			first := postJSON(url+"/v1/responses", `{"model":"m","input":"hi"}`)
			id := regexp.MustCompile(`"id":"(resp_[^"]+)"`).FindStringSubmatch(first)
			Expect(id).To(HaveLen(2), first)
			body := `{"model":"m","stream":` + strconv.FormatBool(stream) + `,"previous_response_id":"` + id[1] + `","input":[{"role":"user","content":"again"}]}`
			Expect(postJSON(url+"/v1/responses", body)).To(ContainSubstring(`"previous_response_id":"` + id[1] + `"`))
		},
		Entry("whole", false),
		Entry("streamed", true),
	)
})
