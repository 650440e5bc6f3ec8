package wire_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("an MCP request the recording holds no answer to, in a replay", func() {
	// The agent goes on from the error it got: the replayed log shows the
	// request where it was made, with that error, for the log's diff.
	It("is recorded in the replayed log with the error the agent got", func() {
		dir := newFixture("fork/mcp", mcpScenario, mcpPlaybook)
		_, err := recordWith(dir, mcpRuntime(&mcpServer{}))
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		changed := mcpRuntime(nil, func(ctx context.Context, env *wire.Env) {
			_, err := env.MCP(ctx, "facts", "tools/list", json.RawMessage(`{"cursor":"2"}`), nil)
			Expect(err).NotTo(HaveOccurred())
		})
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: changed})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		requests := described(o.Replayed[0].Events, session.TypeMCPCall, func(_ int, d *session.MCPCallData) string {
			if d.Error == nil {
				return fmt.Sprintf("%s %s answered", d.Method, d.Params)
			}
			return fmt.Sprintf("%s %s refused %d", d.Method, d.Params, d.Error.Code)
		})
		Expect(requests).To(ContainElement(fmt.Sprintf(`tools/list {"cursor":"2"} refused %d`, wire.ErrMCPReplay)))
	})
})

var _ = Describe("an MCP request the server answered with an error", func() {
	It("is answered that error in a replay, the replay green", func() {
		missing := &session.MCPError{Code: -32602, Message: "no such resource"}
		read := func(ctx context.Context, env *wire.Env) {
			res, err := env.MCP(ctx, "facts", "resources/read", json.RawMessage(`{"uri":"facts://owner"}`), func(context.Context) (json.RawMessage, *session.MCPError, error) {
				return nil, missing, nil
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Error).To(Equal(missing), "the server's error, as it answered it")
			Expect(res.Result).To(BeEmpty())
		}
		dir := newFixture("fork/mcp", mcpScenario, mcpPlaybook)
		_, err := recordWith(dir, mcpRuntime(&mcpServer{}, read))
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: mcpRuntime(nil, read)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})
