package main

import (
	"encoding/base64"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/internal/leaktest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// geminiJSON is a Gemini generateContent body of the scenario's
// conversation and then a user message saying text.
func geminiJSON(text string) string {
	return `{"systemInstruction":{"parts":[{"text":"You are terse."}]},"contents":[` +
		`{"role":"user","parts":[{"text":"Reply OK."}]},{"role":"model","parts":[{"text":"Noted."}]},` +
		`{"role":"user","parts":[{"text":"` + text + `"}]}]}`
}

var _ = Describe("agentsnap serve --record and each way an agent sends its key", Label("secrets"), func() {
	const key = "agent-way-key-0123456789"
	say := "My key is " + key + ". Reply OK."
	gemini := "/v1beta/models/m:generateContent"

	DescribeTable("refuses a recording that would hold it, naming where it came from, and shows it nowhere",
		func(environ map[string]string, path, body string, edit func(*http.Request), source string) {
			dir := playbookScenario(`{"text": "OK"}`)
			s := startServe(environ, "serve", dir, "--record", "--runtime", "own-agent")
			code, answer, _ := postJSON(strings.TrimSuffix(s.url, "/v1")+path, body, edit)
			Expect(code).To(Equal(http.StatusOK), answer)
			code, out, stderr := s.stop()
			expectRefusedFor(dir, key, source, code, out, stderr)
		},
		Entry("x-goog-api-key (Gemini)", nil, gemini, geminiJSON(say),
			func(r *http.Request) { r.Header.Set("X-Goog-Api-Key", key) }, "the x-goog-api-key header of the agent's request"),
		Entry("a key= query parameter (Gemini)", nil, gemini+"?key="+key, geminiJSON(say),
			nil, "the key= query parameter of the agent's request"),
		Entry("an anthropic-api-key-like header of the agent's own", nil, "/v1/chat/completions", chatJSON(`{"role":"assistant","content":"Noted."}`, `{"role":"user","content":"`+say+`"}`),
			func(r *http.Request) { r.Header.Set("Anthropic-Api-Key", key) }, "the anthropic-api-key header of the agent's request"),
		Entry("user info, sent as Basic credentials", nil, "/v1/chat/completions", chatJSON(`{"role":"assistant","content":"Noted."}`, `{"role":"user","content":"`+say+`"}`),
			func(r *http.Request) { r.SetBasicAuth("agent", key) }, "the basic password in the Authorization header of the agent's request"),
		Entry("an api_key member of the body, which the request's settings record as sent", nil, "/v1/chat/completions",
			`{"model":"own-agent","api_key":"`+key+`","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Reply OK."}]}`,
			nil, "the api_key member of the agent's request body, recorded as sent (send the key as a header instead)"),
		Entry("an Authorization among extra headers the body carries", nil, "/v1/chat/completions",
			`{"model":"own-agent","extra_headers":{"Authorization":"Bearer `+key+`"},"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Reply OK."}]}`,
			nil, "the Authorization member of the agent's request body, recorded as sent (send the key as a header instead)"),
		Entry("a header no name gives away, named in AGENTSNAP_SECRET_VARS", map[string]string{"AGENTSNAP_SECRET_VARS": "TENANT", "TENANT": key},
			"/v1/chat/completions", chatJSON(`{"role":"assistant","content":"Noted."}`, `{"role":"user","content":"`+say+`"}`),
			func(r *http.Request) { r.Header.Set("X-Tenant", key) }, "TENANT"),
	)

	It("shows a key sent as Basic credentials nowhere, the encoded header value included", func() {
		basic := base64.StdEncoding.EncodeToString([]byte("agent:" + key))
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		code, answer, _ := postJSON(s.url+"/chat/completions", chatJSON(`{"role":"assistant","content":"Noted."}`, `{"role":"user","content":"Basic `+basic+`"}`),
			func(r *http.Request) { r.SetBasicAuth("agent", key) })
		Expect(code).To(Equal(http.StatusOK), answer)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		traces, err := leaktest.Traces(basic, []string{filepath.Dir(dir)}, out, stderr)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), stderr)
	})
})
