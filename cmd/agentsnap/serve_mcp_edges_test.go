package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve --record when the live MCP server fails a request", func() {
	It("fails the recording naming the request and the server, and leaves the fixture unchanged", func() {
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		})
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent", "--mcp", "clock="+u.URL)
		status, body, _ := mcpPost(s.url, "clock", toolsCall, func(r *http.Request) { r.Header.Set("Agentsnap-Session", "root") })
		Expect(status).To(Equal(http.StatusBadGateway), body)
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(stderr).To(ContainSubstring(`1 MCP request(s) got no answer from the live server, so the recording would lack them:` + "\n" +
			`  tools/call to server "clock" (session "root"): the live MCP server clock (` + u.URL + `): answered 503 Service Unavailable: down for maintenance`))
		Expect(stderr).To(ContainSubstring("start the server, or fix its --mcp NAME=URL, and record again; the fixture is unchanged"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile(), "a recording without the request would not replay")
	})
})
