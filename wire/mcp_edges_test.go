package wire_test

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("recording an agent whose live MCP server does not answer a request (wire.Env.MCP)", func() {
	It("fails the recording naming the request and the session, and writes no fixture", func() {
		dir := newFixture("fork/mcp-down", mcpScenario, mcpPlaybook)
		// The listing is answered; the lookup is not, and the agent hands
		// the model its error as the tool's result.
		server := &mcpServer{}
		server.down.Store(true)
		_, err := recordWith(dir, mcpRuntime(server))
		Expect(err).To(MatchError(ContainSubstring(`wire: MCP request tools/call to server "facts" of session root got no answer: Post "http://127.0.0.1:1/mcp": connection refused; the session's log lacks the request, so the run fails: make the MCP server answer`)))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile(), "a recording without the request would not replay")
	})
})
