package mcpsnap_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/mcpsnap"
	"github.com/agentsnap/agentsnap/persistence/memory"
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
		func(ctx SpecContext, handler func() http.Handler, transport func(endpoint string) mcp.Transport) {
			ts := httptest.NewServer(handler())
			DeferCleanup(ts.Close)
			live := transport(ts.URL + "/mcp?token=" + token)
			set := secret.New()
			Expect(run(secret.NewContext(ctx, set), memory.New(), nil, func(ctx context.Context, env *wire.Env) error {
				_, err := readTwice(mcpsnap.Transport(env, "resources", live))(ctx, env)
				return err
			})).To(Succeed())
			Expect(set.Redact("the server said " + token)).To(Equal("the server said [REDACTED]"))
		},
		Entry("streamable HTTP", func() http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
		}, NodeTimeout(time.Minute)),
		Entry("SSE", func() http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.SSEClientTransport{Endpoint: endpoint}
		}, NodeTimeout(time.Minute)),
	)
})
