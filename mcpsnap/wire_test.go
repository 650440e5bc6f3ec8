package mcpsnap_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/mcpsnap"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// fakeLive is a live server that keeps what the client writes to it and
// sends nothing until its connection is cut (gone) or closed.
type fakeLive struct {
	connects int
	conn     *fakeConn
}

func (f *fakeLive) Connect(context.Context) (mcp.Connection, error) {
	f.connects++
	f.conn = &fakeConn{gone: make(chan struct{}), written: make(chan jsonrpc.Message, 8)}
	return f.conn, nil
}

type fakeConn struct {
	gone      chan struct{}
	closeOnce sync.Once
	written   chan jsonrpc.Message
}

func (c *fakeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	<-c.gone
	return nil, errors.New("the server went away")
}

func (c *fakeConn) Write(_ context.Context, m jsonrpc.Message) error {
	c.written <- m
	return nil
}

func (c *fakeConn) Close() error {
	c.closeOnce.Do(func() { close(c.gone) })
	return nil
}

func (c *fakeConn) SessionID() string { return "" }

// readMissing reads a resource the server lacks and returns the error the
// client gets.
func readMissing(live mcp.Transport) func(ctx context.Context, env *wire.Env) (*jsonrpc.Error, error) {
	return func(ctx context.Context, env *wire.Env) (*jsonrpc.Error, error) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, mcpsnap.Transport(env, "resources", live), nil)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "count://nothing"})
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return nil, errors.New("reading count://nothing did not fail with a JSON-RPC error")
		}
		return we, nil
	}
}

var _ = Describe("mcpsnap.Transport, faithful to the wire", func() {
	It("records a server's error with its code and data, and replays it with both", func(ctx SpecContext) {
		client := resourcesClient()
		var err error
		store := memory.New()
		var live *jsonrpc.Error
		Expect(run(ctx, store, nil, func(ctx context.Context, env *wire.Env) error {
			live, err = readMissing(client)(ctx, env)
			return err
		})).To(Succeed())
		Expect(live.Code).To(Equal(int64(mcp.CodeResourceNotFound)))
		Expect(live.Data).To(MatchJSON(`{"uri":"count://nothing"}`))

		logs := logsOf(store)
		var recorded *session.MCPError
		for _, e := range logs[0].Events {
			var d session.MCPCallData
			Expect(e.Decode(&d)).To(Succeed())
			if d.Method == "resources/read" {
				recorded = d.Error
			}
		}
		Expect(recorded).NotTo(BeNil())
		Expect(recorded.Code).To(Equal(int64(mcp.CodeResourceNotFound)))
		Expect(recorded.Message).To(Equal(live.Message))
		Expect(recorded.Data).To(MatchJSON(`{"uri":"count://nothing"}`))

		drv, err := fakellm.New(logs)
		Expect(err).NotTo(HaveOccurred())
		var replayed *jsonrpc.Error
		Expect(run(ctx, memory.New(), drv, func(ctx context.Context, env *wire.Env) error {
			replayed, err = readMissing(&absent{})(ctx, env)
			return err
		})).To(Succeed())
		Expect(replayed.Code).To(Equal(live.Code))
		Expect(replayed.Message).To(Equal(live.Message))
		Expect(json.RawMessage(replayed.Data)).To(MatchJSON(live.Data))
	}, NodeTimeout(time.Minute))

	It("passes the client's notifications to the live server while recording, and connects nothing in a replay", func(ctx SpecContext) {
		note := &jsonrpc.Request{Method: "notifications/roots/list_changed"}
		live := &fakeLive{}
		store := memory.New()
		Expect(run(ctx, store, nil, func(ctx context.Context, env *wire.Env) error {
			conn, err := mcpsnap.Transport(env, "counter", live).Connect(ctx)
			Expect(err).NotTo(HaveOccurred())
			defer conn.Close()
			Expect(conn.Write(ctx, note)).To(Succeed())
			return nil
		})).To(Succeed())
		Expect(live.connects).To(Equal(1))
		Expect(live.conn.written).To(Receive(Equal(note)))

		server := &absent{}
		drv, err := fakellm.New([]*session.Log{{Header: session.Header{ID: "root"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(run(ctx, memory.New(), drv, func(ctx context.Context, env *wire.Env) error {
			conn, err := mcpsnap.Transport(env, "counter", server).Connect(ctx)
			Expect(err).NotTo(HaveOccurred())
			defer conn.Close()
			Expect(conn.Write(ctx, note)).To(Succeed(), "dropped: there is no server in a replay")
			return nil
		})).To(Succeed())
		Expect(server.connects.Load()).To(BeZero())
	}, NodeTimeout(time.Minute))

	It("closes the client's connection when the live server goes away", func(ctx SpecContext) {
		live := &fakeLive{}
		Expect(run(ctx, memory.New(), nil, func(ctx context.Context, env *wire.Env) error {
			conn, err := mcpsnap.Transport(env, "counter", live).Connect(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"})).To(Succeed())
			live.conn.Close() // the server is gone
			waiting, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_, err = conn.Read(waiting)
			Expect(err).To(MatchError(mcpsnap.ErrClosed), "Read still waits for a server that is gone")
			return nil
		})).To(Succeed())
	}, NodeTimeout(time.Minute))
})
