package wire_test

import (
	"net/http"

	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the tool results a request brings, for calls of one answer", func() {
	hi := user("hi")

	It("pair each result with a call of its own when the answer gave two calls one id, in the order of the calls", func() {
		same := []session.Part{toolCall("call_1", "lookup", `{"key":"a"}`), toolCall("call_1", "lookup", `{"key":"b"}`)}
		h, store, url := serveWire(script(map[string][]any{"root": {same, "both"}}))
		ok(url, chat(hi), nil)
		ok(url, chat(hi, asked([3]string{"call_1", "lookup", `{"key":"a"}`}, [3]string{"call_1", "lookup", `{"key":"b"}`}),
			result("call_1", "A"), result("call_1", "B")), nil)
		Expect(rendered(h, store, "root")).To(ContainSubstring(`    result call_1: A
    result call_1: B
`))
	})

	It("are refused when missing from a request that does not repeat the last one, even if the last one sent no message", func() {
		h, _, url := serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}}}))
		ok(url, chat(`{"role":"system","content":"Look things up."}`), nil) // a system prompt alone: no message
		code, body := post(url, chat(user("look up the release")), nil)
		Expect(code).To(Equal(http.StatusBadRequest), body)
		expectRefused(h, code, body, "a request for session root, which waits for the results of its tool calls (call_1), carries none of them")
	})
})
