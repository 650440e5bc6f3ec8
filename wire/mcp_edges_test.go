package wire_test

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/wire"
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

	It("fails a request whose session cannot be told with what the error says, not with advice for a server that did not answer", func() {
		dir := newFixture("fork/mcp-unknown-session", mcpScenario, mcpPlaybook)
		var mcpErr error
		_, err := recordWith(dir, mcpRuntime(&mcpServer{}, func(ctx context.Context, env *wire.Env) {
			_, mcpErr = env.MCP(wire.Fork(ctx, "call_none"), "facts", "tools/list", json.RawMessage(`{}`), nil)
		}))
		Expect(mcpErr).To(MatchError(ContainSubstring(`fork child root/call_none names call "call_none", which its parent root never made`)))
		Expect(err).To(MatchError(ContainSubstring(`which its parent root never made (its tool calls so far: none yet); name the id of the parent's tool call that creates the child; the session's log lacks the request, so the run fails`)))
		Expect(err.Error()).NotTo(ContainSubstring("make the MCP server answer"), "the server was never asked")
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})
})
