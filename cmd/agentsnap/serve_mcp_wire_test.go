package main

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve's MCP endpoint on the wire", func() {
	It("sends an answer and a refusal alike as one JSON line, and an answer as an event to an agent that takes only streams", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		status, body, hdr := mcpPost(s.url, "clock", toolsCall, nil) // unrecorded: an answer with an error
		Expect(status).To(Equal(http.StatusOK))
		Expect(hdr.Get("Content-Type")).To(Equal("application/json"))
		Expect(body).To(HaveSuffix("}\n"))
		Expect(strings.Count(body, "\n")).To(Equal(1), body)
		Expect(body).To(ContainSubstring(`"id":7`))

		status, body, hdr = mcpPost(s.url, "clock", `[`+toolsCall+`]`, nil)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(hdr.Get("Content-Type")).To(Equal("application/json"))
		Expect(body).To(HaveSuffix("}\n"))
		Expect(strings.Count(body, "\n")).To(Equal(1), body)
		Expect(rpcMessage(body)).To(HavePrefix("agentsnap serve: "))

		status, body, hdr = mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Header.Set("Accept", "text/event-stream") })
		Expect(status).To(Equal(http.StatusOK))
		Expect(hdr.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(body).To(HavePrefix("event: message\ndata: {"))
		Expect(body).To(HaveSuffix("}\n\n"))
		s.stop()
	})
})
