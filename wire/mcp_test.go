package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The SDK agent looks facts up on an MCP server whose answers change from
// call to call (a counter): it lists the server's tools before its first
// model call, looks the release up in turn 1, and in turn 2 forks a child
// that looks it up again — the same request its inherited turn 1 made.
const (
	mcpScenario = `{
  "description": "an SDK agent asks an MCP server; a fork child asks again",
  "prompts": ["Look the release up.", "Fork a child that looks it up again."],
  "agent": {"system": "You are an SDK agent."}
}
`
	mcpPlaybook = `{
  "sessions": {
    "root": [
      {"toolCalls": [{"id": "call_a", "name": "lookup", "arguments": {"key": "release"}}]},
      {"text": "noted"},
      {"toolCalls": [{"id": "call_f", "name": "subagent_fork", "arguments": {"prompt": "Look the release up again."}}]},
      {"text": "done"}
    ],
    "call_f": [
      {"toolCalls": [{"id": "call_b", "name": "lookup", "arguments": {"key": "release"}}]},
      {"text": "looked up"}
    ]
  }
}
`
)

// mcpServer stands for a live MCP server: each tools/call answers the
// next count. calls counts what it was asked; with down set it answers
// no tools/call, as a server that went away after the listing.
type mcpServer struct {
	calls atomic.Int64
	down  atomic.Bool
}

func (m *mcpServer) send(method string) wire.MCPSend {
	return func(context.Context) (json.RawMessage, *session.MCPError, error) {
		n := m.calls.Add(1)
		if m.down.Load() && method == "tools/call" {
			return nil, nil, errors.New(`Post "http://127.0.0.1:1/mcp": connection refused`)
		}
		if method == "tools/list" {
			return json.RawMessage(`{"tools":[{"name":"lookup","inputSchema":{"type":"object"}}]}`), nil, nil
		}
		return json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":"release #%d"}]}`, n)), nil, nil
	}
}

// mcpRuntime is the SDK agent with its lookups on the MCP server; server
// nil is a replay's, which fails the spec when asked. first, when set,
// runs before anything else.
func mcpRuntime(server *mcpServer, first ...func(ctx context.Context, env *wire.Env)) agentsnap.Runtime {
	return wire.Runtime("mcp-test-agent", func(ctx context.Context, env *wire.Env) error {
		for _, f := range first {
			f(ctx, env)
		}
		send := func(method string) wire.MCPSend {
			if server == nil {
				return func(context.Context) (json.RawMessage, *session.MCPError, error) {
					defer GinkgoRecover()
					Fail("the replay asked the MCP server")
					return nil, nil, nil
				}
			}
			return server.send(method)
		}
		if _, err := env.MCP(ctx, "facts", "tools/list", json.RawMessage(`{}`), send("tools/list")); err != nil {
			return err
		}
		a := newSDKAgent(env)
		a.Tools = []sdkagent.Tool{{
			Name: "lookup", Description: lookup.Description, Parameters: lookup.Parameters,
			Run: func(ctx context.Context, args string) (string, error) {
				var in struct{ Key string }
				_ = json.Unmarshal([]byte(args), &in)
				params := json.RawMessage(fmt.Sprintf(`{"name":"lookup","arguments":{"key":%q}}`, in.Key))
				res, err := env.MCP(ctx, "facts", "tools/call", params, send("tools/call"))
				if err != nil {
					return "", fmt.Errorf("the MCP call failed: %w", err)
				}
				if res.Error != nil {
					return "", fmt.Errorf("the MCP server answered: %s", res.Error.Message)
				}
				var r struct{ Content []struct{ Text string } }
				_ = json.Unmarshal(res.Result, &r)
				return r.Content[0].Text, nil
			},
		}}
		return sendPrompts(ctx, env, a)
	})
}

// sendPrompts runs the scenario's prompts as the turns of a's root session.
func sendPrompts(ctx context.Context, env *wire.Env, a *sdkagent.Agent) error {
	root := a.NewSession()
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := root.Send(ctx, prompt)
		return err
	})
}

// unsliced is a Deriver with the seed-slice bug for what take copies: it
// derives the model calls from a session's own events, and takes the rest
// from its whole log, the inherited prefix included.
func unsliced(take func(s, whole *fakellm.Script)) func(*session.Log) (*fakellm.Script, error) {
	return func(l *session.Log) (*fakellm.Script, error) {
		s, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		if err != nil {
			return nil, err
		}
		whole, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		if err != nil {
			return nil, err
		}
		take(s, whole)
		return s, nil
	}
}

// described describes each event of type typ of events, its data decoded
// as T, with say (given the event's index too).
func described[T any](events []session.Event, typ string, say func(i int, d *T) string) []string {
	GinkgoHelper()
	var out []string
	for i, e := range events {
		if e.Type != typ {
			continue
		}
		var d T
		Expect(e.Decode(&d)).To(Succeed())
		out = append(out, say(i, &d))
	}
	return out
}

// mcpAnswers returns a log's mcp/call events as "method result".
func mcpAnswers(events []session.Event) []string {
	return described(events, session.TypeMCPCall, func(_ int, d *session.MCPCallData) string {
		return d.Method + " " + string(d.Result)
	})
}

var _ = Describe("an agent's MCP requests (wire.Env.MCP)", func() {
	var (
		fx     *fixture.Fixture
		server *mcpServer
	)
	BeforeEach(func() {
		dir := newFixture("fork/mcp", mcpScenario, mcpPlaybook)
		server = &mcpServer{}
		_, err := recordWith(dir, mcpRuntime(server))
		Expect(err).NotTo(HaveOccurred())
		fx, err = fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
	})

	It("are recorded in the log of the session that made them, a fork child's after its inherited ones", func() {
		Expect(server.calls.Load()).To(Equal(int64(3)))
		root, child := fx.Logs[0], fx.Logs[1]
		Expect(mcpAnswers(root.Events)).To(Equal([]string{
			`tools/list {"tools":[{"name":"lookup","inputSchema":{"type":"object"}}]}`,
			`tools/call {"content":[{"type":"text","text":"release #2"}]}`,
		}))
		Expect(root.Events[2].Type).To(Equal(session.TypeMCPCall), "the listing made before the first model call is in turn 1, before its first step")
		Expect(child.Header.Mode).To(Equal(session.ModeFork))
		Expect(mcpAnswers(child.Own())).To(Equal([]string{`tools/call {"content":[{"type":"text","text":"release #3"}]}`}))
		Expect(mcpAnswers(child.Seed())).To(HaveLen(2), "the seed holds the root's turn 1")
		golden, err := os.ReadFile(filepath.Join(fx.Dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(ContainSubstring(`mcp facts tools/call lookup {"key":"release"}: release #3`))
	})

	It("replay green with no MCP server, each session from its own recording", func() {
		for range 5 {
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: mcpRuntime(nil)})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		}
	})

	It("serve a fork child its parent's answer when the seed is not sliced off", func() {
		broken := unsliced(func(s, whole *fakellm.Script) { s.MCP = whole.MCP })
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: mcpRuntime(nil), Deriver: broken})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).NotTo(harness.MatchRecording())
		Expect(o.Differences).NotTo(BeEmpty())
		Expect(o.Differences[0].Session).To(Equal("session 1"))
		Expect(o.Differences[0].Replay).To(ContainSubstring("release #2"), o.Report())
	})

	It("fail the replay, naming the request, when the recording holds no answer, and answer the agent an error", func() {
		changed := mcpRuntime(nil, func(ctx context.Context, env *wire.Env) {
			res, err := env.MCP(ctx, "facts", "tools/list", json.RawMessage(`{"cursor":"2"}`), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Error).NotTo(BeNil())
			Expect(res.Error.Code).To(Equal(int64(wire.ErrMCPReplay)))
			Expect(res.Error.Message).To(ContainSubstring("re-record with"))
		})
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: changed})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Consumption).To(MatchError(fakellm.ErrUnrecordedTool))
		Expect(o.Consumption.Error()).To(ContainSubstring(`session root (session.jsonl): MCP request tools/list to server "facts" with params {"cursor":"2"}: the recording holds no answer to it`))
	})
})
