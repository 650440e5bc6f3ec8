package main

import (
	"context"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve's verdict on an agent that called an endpoint serve does not serve", func() {
	It("ends with that error's advice, not with the re-recording, which would fail the same way", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), s.url, serveFixture)).To(Succeed())
		status, body, _ := postJSON(s.url+"/embeddings", `{"model":"e","input":"x"}`, nil)
		Expect(status).To(Equal(http.StatusNotFound), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(out).To(ContainSubstring("\nreplay errors:\n  wire: POST /v1/embeddings is not a model call agentsnap serves"))
		Expect(out).To(HaveSuffix("\n\nRe-recording would not mend this (the run fails the same way while recording): do what the replay error says, then run again.\n"))
		Expect(out).NotTo(ContainSubstring("--record"))
		Expect(strings.ToLower(out)).NotTo(ContainSubstring("re-record the scenario"))
	})
})
