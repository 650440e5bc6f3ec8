package wire_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// chainLogs serves the requests bodies makes to a new handler serving
// format — each made from the ids of the responses before it — and
// returns every log it wrote, encoded.
func chainLogs(format wire.Format, bodies ...func(ids []string) string) map[string]string {
	GinkgoHelper()
	store := memory.New()
	clock := time.UnixMilli(946684800000)
	answers := map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "v2.4.1 it is.", "v2.4.2 it is.", "team-atlas."}}
	h, err := wire.NewHandler(wire.Config{Driver: script(answers), Store: store, Formats: []wire.Format{format}, Clock: func() time.Time { return clock }})
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, body := range bodies {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/responses", strings.NewReader(body(ids))))
		Expect(w.Code).To(Equal(http.StatusOK), w.Body.String())
		m := regexp.MustCompile(`"id":"(resp_[^"]+)"`).FindStringSubmatch(w.Body.String())
		Expect(m).To(HaveLen(2), w.Body.String())
		ids = append(ids, m[1])
	}
	Expect(h.Close(context.Background())).To(Succeed())
	return storedLogs(store)
}

var _ = Describe("a Responses request that chains to an earlier response than the session's last answer", func() {
	// An agent may go back to an earlier response (a regenerated answer,
	// a branch): what the request continues is that response's
	// conversation, not the last request's.
	It("writes the logs a handler reading every request whole writes, byte for byte", func() {
		user := func(text string) string { return `{"role":"user","content":"` + text + `"}` }
		chain := func(to int, rest, input string) func([]string) string {
			return func(ids []string) string {
				return `{"model":"gpt-x","store":true,` + rest + `"previous_response_id":"` + ids[to] + `","input":[` + input + `]}`
			}
		}
		output := func(text string) string {
			return `{"type":"function_call_output","call_id":"call_1","output":"` + text + `"}`
		}
		bodies := []func([]string) string{
			func([]string) string {
				return `{"model":"gpt-x","store":true,"input":[` + user("Which release is current?") + `]}`
			},
			chain(0, "", output("v2.4.1")),
			// A branch from the first response: the call answered otherwise,
			// at another temperature.
			chain(0, `"temperature":0.2,`, output("v2.4.2")),
			// Back on the first branch, which the last request did not continue.
			chain(1, "", user("And who owns it?")),
		}
		whole := chainLogs(wholeResponses{wire.Responses()}, bodies...)
		Expect(whole["root"]).To(MatchRegexp(`"type":"history/replace".*"keep":2,"messages":\[\{"role":"tool".*"text":"v2.4.1"`))
		Expect(chainLogs(wire.Responses(), bodies...)).To(Equal(whole))
	})
})
