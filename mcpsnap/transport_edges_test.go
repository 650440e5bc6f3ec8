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
	It("makes the credential a secret of the recording, so the fixture cannot hold it", func(ctx SpecContext) {
		const token = "mcp-url-token-0123456789"
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return resources() }, nil))
		DeferCleanup(ts.Close)
		live := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp?token=" + token, MaxRetries: -1}
		set := secret.New()
		Expect(run(secret.NewContext(ctx, set), memory.New(), nil, func(ctx context.Context, env *wire.Env) error {
			_, err := readTwice(mcpsnap.Transport(env, "resources", live))(ctx, env)
			return err
		})).To(Succeed())
		Expect(set.Redact("the server said " + token)).To(Equal("the server said [REDACTED]"))
	}, NodeTimeout(time.Minute))
})
