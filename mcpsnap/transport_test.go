package mcpsnap_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/mcpsnap"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMCPSnap(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mcpsnap")
}

// counter is an MCP server whose tool "next" answers how often it was
// called; when the call's arguments ask to wait, it closes started and
// waits for release first.
func counter(started chan<- struct{}, release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "v1"}, nil)
	var n atomic.Int64
	type args struct {
		Who  string `json:"who"`
		Wait bool   `json:"wait"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "next", Description: "Count one up."}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		if in.Wait {
			close(started)
			<-release
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %d", in.Who, n.Add(1))}}}, nil, nil
	})
	return s
}

// absent is the live server in a replay: there is none, and it counts
// what tried to connect it.
type absent struct{ connects atomic.Int64 }

func (a *absent) Connect(context.Context) (mcp.Connection, error) {
	a.connects.Add(1)
	return nil, errors.New("there is no MCP server in a replay")
}

// noModel is a driver no spec calls.
var noModel = llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
	return nil, fmt.Errorf("no model in these specs")
})

// run runs agent under wire.Runtime on store: a recording without
// replay, else a replay from it. A spec's run ends with its timeout.
func run(ctx context.Context, store persistence.Store, replay llm.ToolReplay, agent func(ctx context.Context, env *wire.Env) error) error {
	env := &agentsnap.Env{
		Scenario: &scenario.Scenario{}, Driver: noModel, ToolReplay: replay, Store: store,
		Clock: func() time.Time { return agentsnap.Epoch }, Recording: replay == nil, Logf: func(string, ...any) {},
	}
	return wire.Runtime("mcpsnap-test", agent).Run(ctx, env)
}

// twoAtOnce calls next twice at the same time: the second once the
// server started on the first (started; nil in a replay), and the first
// answered only after the second (release). It returns the texts, in call
// order.
func twoAtOnce(live mcp.Transport, started, release chan struct{}) func(ctx context.Context, env *wire.Env) ([]string, error) {
	return func(ctx context.Context, env *wire.Env) ([]string, error) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "counter", live), nil)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		texts := make([]string, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, who := range []string{"first", "second"} {
			if i == 1 && started != nil {
				<-started // both wait for an answer at once, the first asked first
			}
			wg.Go(func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "next", Arguments: map[string]any{"who": who, "wait": i == 0}})
				if err != nil {
					errs[i] = err
					return
				}
				texts[i] = res.Content[0].(*mcp.TextContent).Text
				if i == 1 && release != nil {
					close(release)
				}
			})
		}
		wg.Wait()
		return texts, errs[0]
	}
}

func logsOf(store persistence.Store) []*session.Log {
	GinkgoHelper()
	logs, err := persistence.LoadAll(context.Background(), store)
	Expect(err).NotTo(HaveOccurred())
	return logs
}

var _ = Describe("mcpsnap.Transport", func() {
	var (
		recorded []*session.Log
		texts    []string
	)
	BeforeEach(func(ctx SpecContext) {
		started, release := make(chan struct{}), make(chan struct{})
		client, server := mcp.NewInMemoryTransports()
		ss, err := counter(started, release).Connect(context.Background(), server, nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ss.Close)
		store := memory.New()
		Expect(run(ctx, store, nil, func(ctx context.Context, env *wire.Env) error {
			var err error
			texts, err = twoAtOnce(client, started, release)(ctx, env)
			return err
		})).To(Succeed())
		recorded = logsOf(store)
	}, NodeTimeout(time.Minute))

	It("hands each of two requests at once its own answer, and records both in the session's log", func() {
		Expect(texts).To(Equal([]string{"first: 2", "second: 1"}), "the second was answered first")
		Expect(recorded).To(HaveLen(1))
		var calls []string
		for _, e := range recorded[0].Events {
			Expect(e.Type).To(Equal(session.TypeMCPCall))
			var d session.MCPCallData
			Expect(e.Decode(&d)).To(Succeed())
			Expect(d.Server).To(Equal("counter"))
			calls = append(calls, d.Method)
		}
		Expect(calls).To(ContainElements("tools/call", "tools/call"))
	})

	It("replays both from the recording with no server, writing the same log", func(ctx SpecContext) {
		drv, err := fakellm.New(recorded)
		Expect(err).NotTo(HaveOccurred())
		store := memory.New()
		var got []string
		server := &absent{}
		Expect(run(ctx, store, drv, func(ctx context.Context, env *wire.Env) error {
			var err error
			got, err = twoAtOnce(server, nil, nil)(ctx, env)
			return err
		})).To(Succeed())
		Expect(got).To(Equal(texts))
		Expect(server.connects.Load()).To(BeZero(), "the replay connected the server")
		Expect(drv.Check()).To(Succeed())
		replayed := logsOf(store)
		Expect(replayed).To(HaveLen(1))
		Expect(replayed[0].Events).To(Equal(recorded[0].Events), "the same events, in the same order")
	})

	It("answers a request the recording lacks with an error naming it, and the replay's check fails", func(ctx SpecContext) {
		drv, err := fakellm.New(recorded)
		Expect(err).NotTo(HaveOccurred())
		err = run(ctx, memory.New(), drv, func(ctx context.Context, env *wire.Env) error {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "counter", nil), nil)
			if err != nil {
				return err
			}
			defer cs.Close()
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "next", Arguments: map[string]any{"who": "third"}})
			return err
		})
		var werr *jsonrpc.Error
		Expect(errors.As(err, &werr)).To(BeTrue(), "a JSON-RPC error response: %v", err)
		Expect(werr.Code).To(Equal(int64(wire.ErrMCPReplay)))
		Expect(werr.Message).To(HavePrefix(`fakellm: unrecorded tool call: session root (memory:root): MCP request tools/call to server "counter" with params {"arguments":{"who":"third"},"name":"next"}: the recording holds no answer to it (recorded MCP requests of this session: counter server/discover {}; counter tools/call {"arguments":{"wait":false,"who":"second"},"name":"next"}; counter tools/call {"arguments":{"wait":true,"who":"first"},"name":"next"}) — `))
		Expect(drv.Check()).To(MatchError(fakellm.ErrUnrecordedTool))
	})

	It("refuses to record without a live server, naming the server", func(ctx SpecContext) {
		err := run(ctx, memory.New(), nil, func(ctx context.Context, env *wire.Env) error {
			_, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "counter", nil), nil)
			return err
		})
		Expect(err).To(MatchError(ContainSubstring("mcpsnap: server counter: a recording needs the live server, and the transport has none")))
	})

	It("ends Read and refuses Write once closed", func(ctx SpecContext) {
		Expect(run(ctx, memory.New(), nil, func(ctx context.Context, env *wire.Env) error {
			conn, err := mcpsnap.Transport(env, "counter", nil).Connect(ctx)
			Expect(err).NotTo(HaveOccurred())
			read := make(chan error, 1)
			go func() {
				_, err := conn.Read(ctx)
				read <- err
			}()
			Expect(conn.Close()).To(Succeed())
			Expect(<-read).To(MatchError(mcpsnap.ErrClosed))
			Expect(conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"})).To(MatchError(mcpsnap.ErrClosed))
			Expect(conn.Close()).To(Succeed(), "twice")
			return nil
		})).To(Succeed())
	})
})

// resources is an MCP server with one resource whose text changes on
// every read.
// resourcesClient connects resources in memory, for the spec's length,
// and returns the client's end.
func resourcesClient() mcp.Transport {
	GinkgoHelper()
	client, server := mcp.NewInMemoryTransports()
	ss, err := resources().Connect(context.Background(), server, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ss.Close)
	return client
}

func resources() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "resources", Version: "v1"}, nil)
	var n atomic.Int64
	s.AddResource(&mcp.Resource{URI: "count://reads", Name: "reads", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: fmt.Sprintf("read #%d", n.Add(1))}}}, nil
	})
	return s
}

// readTwice reads count://reads twice and an unknown resource once, and
// returns what it got, the error's text last.
func readTwice(live mcp.Transport) func(ctx context.Context, env *wire.Env) ([]string, error) {
	return func(ctx context.Context, env *wire.Env) ([]string, error) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "resources", live), nil)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		var out []string
		for range 2 {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "count://reads"})
			if err != nil {
				return nil, err
			}
			out = append(out, res.Contents[0].Text)
		}
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "count://nothing"})
		if err == nil {
			return nil, errors.New("reading count://nothing did not fail")
		}
		return append(out, err.Error()), nil
	}
}

var _ = Describe("mcpsnap.Transport's resources/read", func() {
	It("records each read and the server's error, and replays them with no server", func(ctx SpecContext) {
		client := resourcesClient()
		var err error
		store := memory.New()
		var recorded []string
		Expect(run(ctx, store, nil, func(ctx context.Context, env *wire.Env) error {
			recorded, err = readTwice(client)(ctx, env)
			return err
		})).To(Succeed())
		Expect(recorded[:2]).To(Equal([]string{"read #1", "read #2"}))
		logs := logsOf(store)
		methods := map[string]int{}
		for _, e := range logs[0].Events {
			var d session.MCPCallData
			Expect(e.Decode(&d)).To(Succeed())
			methods[d.Method]++
			if d.Method == "resources/read" && strings.Contains(string(d.Params), "nothing") {
				Expect(d.Error).NotTo(BeNil(), "the server's error response is recorded as such")
			}
		}
		Expect(methods).To(HaveKeyWithValue("resources/read", 3))

		drv, err := fakellm.New(logs)
		Expect(err).NotTo(HaveOccurred())
		absent := &absent{}
		replayed := memory.New()
		var got []string
		Expect(run(ctx, replayed, drv, func(ctx context.Context, env *wire.Env) error {
			got, err = readTwice(absent)(ctx, env)
			return err
		})).To(Succeed())
		Expect(got).To(Equal(recorded), "each read its own answer, the error too")
		Expect(absent.connects.Load()).To(BeZero())
		Expect(drv.Check()).To(Succeed())
		Expect(logsOf(replayed)[0].Events).To(Equal(logs[0].Events))
	}, NodeTimeout(time.Minute))
})
