package wire_test

import (
	"net/http"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Handler.ToolReplayed asked again over HTTP for a call the recording answered", func() {
	// serve's POST /agentsnap/tool: a client that retries after its
	// connection dropped asks for the same call again.
	It("serves the recorded output again and records it once", func(ctx SpecContext) {
		h, store, url := serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "done"}}),
			func(c *wire.Config) { c.ToolReplay = recordedOutputs{"call_1": "v2.4.1"} })
		ok(url, chat(user("hi")), nil)
		lookup := session.Part{ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`}
		for range 2 {
			made, out, served, err := h.ToolReplayed(ctx, http.Header{}, lookup)
			Expect(err).NotTo(HaveOccurred())
			Expect(served).To(BeTrue())
			Expect(made.ID).To(Equal("call_1"))
			Expect(out).To(Equal(session.ToolOutput{Text: "v2.4.1"}))
		}
		ok(url, chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"release"}`}), result("call_1", "v2.4.1")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		Expect(storedToolRecords(ctx, store)).To(Equal([]string{`root call_1 lookup {"key":"release"}: v2.4.1, then tool/result`}))
	})
})
