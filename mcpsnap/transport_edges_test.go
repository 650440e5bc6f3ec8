package mcpsnap_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/mcpsnap"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("mcpsnap.Transport to a live server whose URL carries a credential", func() {
	const token = "mcp-url-token-0123456789"
	// Each live transport the SDK connects by URL: the credential in its
	// Endpoint is a secret whichever one the agent uses.
	DescribeTable("makes the credential a secret of the recording, so the fixture cannot hold it",
		func(ctx SpecContext, handler func() http.Handler, transport func(endpoint string) mcp.Transport, own bool) {
			ts := httptest.NewServer(handler())
			DeferCleanup(ts.Close)
			live := transport(ts.URL + "/mcp?token=" + token)
			set := secret.New()
			Expect(run(secret.NewContext(ctx, set), memory.New(), nil, func(ctx context.Context, env *wire.Env) error {
				if own { // the agent's client runs on a context of its own, not Run's
					ctx = context.Background()
				}
				_, err := readTwice(mcpsnap.Transport(env, "resources", live))(ctx, env)
				return err
			})).To(Succeed())
			Expect(set.Redact("the server said " + token)).To(Equal("the server said [REDACTED]"))
		},
		Entry("streamable HTTP", func() http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
		}, false, NodeTimeout(time.Minute)),
		Entry("streamable HTTP, the client on a context of its own", func() http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
		}, true, NodeTimeout(time.Minute)),
		Entry("SSE", func() http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.SSEClientTransport{Endpoint: endpoint}
		}, false, NodeTimeout(time.Minute)),
	)
})

// anew is an only-changed recording's ToolReplay for a session that went
// to the model after its MCP handshake: the handshake replays from the
// recording, every later request is recorded anew (llm.ErrRunTool).
type anew struct{ *fakellm.Driver }

func (a anew) ReplayMCP(ctx context.Context, ref llm.SessionRef, call session.MCPCallData) (session.MCPCallData, error) {
	if call.Method == "tools/call" {
		return session.MCPCallData{}, llm.ErrRunTool
	}
	return a.Driver.ReplayMCP(ctx, ref, call)
}

var _ = Describe("mcpsnap.Transport in an only-changed recording whose session is recorded anew after its handshake replayed", func() {
	It("sends the request to the live server, which takes it without a handshake of its own, and records the new answer", func(ctx SpecContext) {
		call := func(ctx context.Context, env *wire.Env, live mcp.Transport, who string) (string, error) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "counter", live), nil)
			if err != nil {
				return "", err
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "next", Arguments: map[string]any{"who": who, "wait": false}})
			if err != nil {
				return "", err
			}
			return res.Content[0].(*mcp.TextContent).Text, nil
		}
		liveServer := func() mcp.Transport {
			client, server := mcp.NewInMemoryTransports()
			ss, err := counter(nil, nil).Connect(context.Background(), server, nil)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ss.Close)
			return client
		}
		store := memory.New()
		live := liveServer()
		var text string
		Expect(run(ctx, store, nil, func(ctx context.Context, env *wire.Env) error {
			var err error
			text, err = call(ctx, env, live, "a")
			return err
		})).To(Succeed())
		Expect(text).To(Equal("a: 1"))

		drv, err := fakellm.New(logsOf(store))
		Expect(err).NotTo(HaveOccurred())
		again := memory.New()
		env := &agentsnap.Env{
			Scenario: &scenario.Scenario{}, Driver: noModel, ToolReplay: anew{drv}, Store: again,
			Clock: func() time.Time { return agentsnap.Epoch }, Recording: true, Logf: func(string, ...any) {},
		}
		live = liveServer()
		Expect(wire.Runtime("mcpsnap-test", func(ctx context.Context, env *wire.Env) error {
			var err error
			text, err = call(ctx, env, live, "b") // a request the recording lacks
			return err
		}).Run(ctx, env)).To(Succeed())
		Expect(text).To(Equal("b: 1"), "the live server's answer")
		logs := logsOf(again)
		Expect(logs).To(HaveLen(1))
		var answers []string
		for _, e := range logs[0].Events {
			var d session.MCPCallData
			Expect(e.Decode(&d)).To(Succeed())
			answers = append(answers, d.Method+" "+string(d.Result))
		}
		Expect(answers).To(ContainElement(ContainSubstring(`"text":"b: 1"`)))
	}, NodeTimeout(time.Minute))
})
