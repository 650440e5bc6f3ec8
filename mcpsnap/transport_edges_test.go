package mcpsnap_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"sync/atomic"
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
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
		// The SDK's logging wrapper holds the transport that connects.
		Entry("streamable HTTP in an mcp.LoggingTransport", func() http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.LoggingTransport{Transport: &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, Writer: io.Discard}
		}, false, NodeTimeout(time.Minute)),
		Entry("SSE in an mcp.LoggingTransport in another", func() http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return resources() }, nil)
		}, func(endpoint string) mcp.Transport {
			return &mcp.LoggingTransport{Transport: &mcp.LoggingTransport{Transport: &mcp.SSEClientTransport{Endpoint: endpoint}, Writer: io.Discard}, Writer: io.Discard}
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

// strict is an MCP server that, like an SDK holding a session to the
// handshake, refuses a tool call before notifications/initialized;
// its tool "next" answers "live".
func strict() *mcp.Server {
	var initialized atomic.Bool
	s := mcp.NewServer(&mcp.Implementation{Name: "strict", Version: "v1"}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { initialized.Store(true) },
	})
	mcp.AddTool(s, &mcp.Tool{Name: "next", Description: "Answer live."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		if !initialized.Load() {
			return nil, nil, errors.New("tools/call before notifications/initialized")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "live"}}}, nil, nil
	})
	return s
}

// only is an only-changed recording's ToolReplay: the methods in anew are
// recorded anew (llm.ErrRunTool), the others replay from the recording.
type only struct {
	*fakellm.Driver
	anew []string
}

func (o only) ReplayMCP(ctx context.Context, ref llm.SessionRef, call session.MCPCallData) (session.MCPCallData, error) {
	if slices.Contains(o.anew, call.Method) {
		return session.MCPCallData{}, llm.ErrRunTool
	}
	return o.Driver.ReplayMCP(ctx, ref, call)
}

var _ = Describe("mcpsnap.Transport in an only-changed recording of a client that initializes (protocol before 2026-07-28)", func() {
	// call connects a client of the initialize handshake and calls next.
	call := func(ctx context.Context, env *wire.Env, live mcp.Transport) (string, error) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "strict", live), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			return "", err
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "next", Arguments: map[string]any{}})
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", errors.New(res.Content[0].(*mcp.TextContent).Text)
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	liveServer := func() mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		ss, err := strict().Connect(context.Background(), server, nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ss.Close)
		return client
	}
	var drv *fakellm.Driver
	BeforeEach(func(ctx SpecContext) {
		store := memory.New()
		Expect(run(ctx, store, nil, func(ctx context.Context, env *wire.Env) error {
			_, err := call(ctx, env, liveServer())
			return err
		})).To(Succeed())
		var err error
		drv, err = fakellm.New(logsOf(store))
		Expect(err).NotTo(HaveOccurred())
	}, NodeTimeout(time.Minute))

	DescribeTable("gives the live server the whole handshake before the session's first request recorded anew",
		func(ctx SpecContext, anew []string) {
			env := &agentsnap.Env{
				Scenario: &scenario.Scenario{}, Driver: noModel, ToolReplay: only{drv, anew}, Store: memory.New(),
				Clock: func() time.Time { return agentsnap.Epoch }, Recording: true, Logf: func(string, ...any) {},
			}
			live := liveServer()
			var text string
			Expect(wire.Runtime("mcpsnap-test", func(ctx context.Context, env *wire.Env) error {
				var err error
				text, err = call(ctx, env, live)
				return err
			}).Run(ctx, env)).To(Succeed())
			Expect(text).To(Equal("live"))
		},
		Entry("its initialize answered from the recording: sent again, then notifications/initialized", []string{"tools/call"}, NodeTimeout(time.Minute)),
		Entry("its initialize recorded anew too (record --session): notifications/initialized passed on", []string{"initialize", "tools/call"}, NodeTimeout(time.Minute)),
	)
})

var _ = Describe("mcpsnap.Transport and a client that listens for list changes (subscriptions/listen, protocol 2026-07-28)", func() {
	It("tells the client no server messages are relayed, recording and replaying alike, so the replay passes", func(ctx SpecContext) {
		var listenErr error
		none := &absent{}
		agent := func(live mcp.Transport) func(ctx context.Context, env *wire.Env) error {
			return func(ctx context.Context, env *wire.Env) error {
				c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}})
				// The SDK opens its listen without waiting for it; this one
				// is the spec's own, to see the answer, on a connection
				// whose live server is never connected.
				conn, err := mcpsnap.Transport(env, "counter", none).Connect(ctx)
				if err != nil {
					return err
				}
				Expect(conn.Write(ctx, &jsonrpc.Request{ID: mustID(99), Method: "subscriptions/listen", Params: json.RawMessage(`{"notifications":{"toolsListChanged":true}}`)})).To(Succeed())
				m, err := conn.Read(ctx)
				Expect(err).NotTo(HaveOccurred())
				listenErr = m.(*jsonrpc.Response).Error
				Expect(conn.Close()).To(Succeed())
				cs, err := c.Connect(ctx, mcpsnap.Transport(env, "counter", live), nil)
				if err != nil {
					return err
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "next", Arguments: map[string]any{"who": "a", "wait": false}}); err != nil {
					return err
				}
				return cs.Close()
			}
		}
		client, server := mcp.NewInMemoryTransports()
		ss, err := counter(nil, nil).Connect(context.Background(), server, nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ss.Close)
		store := memory.New()
		Expect(run(ctx, store, nil, agent(client))).To(Succeed())
		Expect(listenErr).To(MatchError(ContainSubstring("mcpsnap: server counter: subscriptions/listen is not relayed")))
		logs := logsOf(store)
		for _, e := range logs[0].Events {
			var d session.MCPCallData
			Expect(e.Decode(&d)).To(Succeed())
			Expect(d.Method).NotTo(Equal("subscriptions/listen"), "not recorded: a replay could send nothing on it")
		}

		drv, err := fakellm.New(logs)
		Expect(err).NotTo(HaveOccurred())
		listenErr = nil
		Expect(run(ctx, memory.New(), drv, agent(&absent{}))).To(Succeed())
		Expect(listenErr).To(MatchError(ContainSubstring("is not relayed")), "the same answer in the replay")
		Expect(drv.Check()).To(Succeed())
		Expect(none.connects.Load()).To(BeZero(), "the listen was sent to a live server")
	}, NodeTimeout(time.Minute))
})

func mustID(n int64) jsonrpc.ID {
	id, err := jsonrpc.MakeID(float64(n))
	Expect(err).NotTo(HaveOccurred())
	return id
}

// stdioServerVar, set in a command's environment, makes the test binary
// the resources server on its stdin and stdout.
const stdioServerVar = "MCPSNAP_TEST_STDIO_SERVER"

func init() {
	if os.Getenv(stdioServerVar) == "" {
		return
	}
	if err := resources().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

var _ = Describe("mcpsnap.Transport to a live server started as a command with a credential in its environment", func() {
	const token = "ghp-stdio-token-0123456789"

	It("makes the value of each variable named as a credential a secret of the recording, and no other", func(ctx SpecContext) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), stdioServerVar+"=1", "GITHUB_PERSONAL_ACCESS_TOKEN="+token, "SERVER_CONFIG=/etc/resources/config.json")
		live := &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: io.Discard}
		set := secret.New()
		var got []string
		Expect(run(secret.NewContext(ctx, set), memory.New(), nil, func(ctx context.Context, env *wire.Env) (err error) {
			got, err = readTwice(live)(ctx, env)
			return err
		})).To(Succeed())
		Expect(got).To(HaveExactElements("read #1", "read #2", ContainSubstring("Resource not found")), "the command served the recording")
		source, _, ok := set.FindString("the server said " + token)
		Expect(ok).To(BeTrue())
		Expect(source).To(Equal("the GITHUB_PERSONAL_ACCESS_TOKEN variable of the command of MCP server resources"))
		Expect(set.Redact("read /etc/resources/config.json")).To(Equal("read /etc/resources/config.json"))
	}, NodeTimeout(time.Minute))
})
