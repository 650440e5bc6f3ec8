package mcpagent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/examples/mcp-agent"
	"github.com/agentsnap/agentsnap/examples/mcp-agent/clock"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// This file runs the agent as an agent in another language would be run:
// against agentsnap serve, its model calls to serve's /v1 and its MCP
// requests to serve's /mcp/clock (Streamable HTTP), each session named by
// the Agentsnap-* headers.

// servedSession is the session an HTTP request names (nil: the root).
type servedSession struct{ id, parent, call, mode string }

type servedKey struct{}

// headers is an HTTP transport that sets the Agentsnap-* headers of the
// session in the request's context, as an agent's client middleware does.
type headers struct{ next http.RoundTripper }

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	s, _ := r.Context().Value(servedKey{}).(*servedSession)
	if s == nil {
		return h.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Agentsnap-Session", s.id)
	r.Header.Set("Agentsnap-Parent", s.parent)
	r.Header.Set("Agentsnap-Call", s.call)
	r.Header.Set("Agentsnap-Mode", s.mode)
	return h.next.RoundTrip(r)
}

// childSession names a child's session in its context.
func childSession(ctx context.Context, callID string, fork bool) context.Context {
	parent := "root"
	if s, _ := ctx.Value(servedKey{}).(*servedSession); s != nil {
		parent = s.id
	}
	mode := "spawn"
	if fork {
		mode = "fork"
	}
	return context.WithValue(ctx, servedKey{}, &servedSession{id: callID, parent: parent, call: callID, mode: mode})
}

// runServed runs the agent against serve's base URL (…/v1) with the
// scenario in dir.
func runServed(ctx context.Context, base, dir string) error {
	sc, err := scenario.Load(dir)
	if err != nil {
		return err
	}
	var cfg settings
	if err := json.Unmarshal(sc.Agent, &cfg); err != nil {
		return err
	}
	hc := &http.Client{Transport: headers{next: http.DefaultTransport}}
	tools, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-agent", Version: "v1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: strings.TrimSuffix(base, "/v1") + "/mcp/clock", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return fmt.Errorf("connecting serve's MCP endpoint: %w", err)
	}
	defer tools.Close()
	agent, err := mcpagent.New(ctx, mcpagent.Config{
		Client:       openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc), option.WithAPIKey("agentsnap"), option.WithMaxRetries(0)),
		Model:        "any",
		System:       cfg.System,
		Tools:        tools,
		ChildContext: childSession,
	})
	if err != nil {
		return err
	}
	root := agent.NewSession()
	for _, p := range sc.Prompts {
		if _, err := root.Send(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// served is one agentsnap serve process.
type served struct {
	cmd    *exec.Cmd
	url    string
	out    bytes.Buffer
	errb   bytes.Buffer
	copied chan struct{}
}

func startServe(ctx context.Context, bin string, args ...string) *served {
	GinkgoHelper()
	s := &served{cmd: exec.CommandContext(ctx, bin, append([]string{"serve"}, args...)...), copied: make(chan struct{})}
	s.cmd.Stderr = &s.errb
	stdout, err := s.cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(s.cmd.Start()).To(Succeed())
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	go func() {
		defer close(s.copied)
		_, _ = io.Copy(&s.out, br)
	}()
	if err != nil {
		<-s.copied
		_ = s.cmd.Wait()
		Fail(fmt.Sprintf("agentsnap serve printed no URL line:\n%s%s", s.out.String(), s.errb.String()))
	}
	s.url = strings.TrimSuffix(line, "\n")
	return s
}

// stop sends SIGINT and returns the exit code and all output after the URL.
func (s *served) stop() (int, string) {
	GinkgoHelper()
	Expect(s.cmd.Process.Signal(os.Interrupt)).To(Succeed())
	<-s.copied
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(fmt.Sprintf("agentsnap serve: %v", err))
	}
	return s.cmd.ProcessState.ExitCode(), s.out.String() + s.errb.String()
}

var _ = Describe("the agent out of process, through agentsnap serve's MCP endpoint", Ordered, func() {
	var (
		bin, dir string
		asked    atomic.Int64 // requests the live clock server got
	)
	BeforeAll(func(ctx SpecContext) {
		bin = filepath.Join(GinkgoT().TempDir(), "agentsnap")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/agentsnap")
		build.Dir = filepath.Join("..", "..") // the CLI's own module, with its dependencies
		b, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "go build agentsnap:\n%s", b)

		dir = filepath.Join(GinkgoT().TempDir(), "fork", "what-time")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		for _, name := range []string{"scenario.json", "playbook.json"} {
			b, err := os.ReadFile(filepath.Join(root, "fork", "what-time", name))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, name), b, 0o644)).To(Succeed())
		}

		// The live clock, on a Streamable HTTP endpoint of its own, only
		// while recording.
		srv := clock.NewServer(time.Now)
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			h.ServeHTTP(w, r)
		}))
		GinkgoT().Setenv("CI", "") // serve --record refuses under CI
		s := startServe(ctx, bin, dir, "--record", "--runtime", "mcp-agent-served", "--mcp", "clock="+live.URL)
		Expect(runServed(ctx, s.url, dir)).To(Succeed())
		code, out := s.stop()
		live.Close()
		Expect(code).To(Equal(0), out)
		Expect(asked.Load()).To(BeNumerically(">", 0))
	}, NodeTimeout(3*time.Minute))

	It("records the clock's answers in the log of the session that asked", func() {
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(2))
		answers := func(l *session.Log) []string {
			var out []string
			for _, e := range l.Own() {
				var d session.MCPCallData
				if e.Type == session.TypeMCPCall && e.Decode(&d) == nil && d.Method == "tools/call" {
					Expect(d.Server).To(Equal("clock"))
					out = append(out, string(d.Result))
				}
			}
			return out
		}
		Expect(answers(fx.Logs[0])).To(ConsistOf(ContainSubstring("in Europe/Lisbon (check #1)")))
		Expect(answers(fx.Logs[1])).To(ConsistOf(ContainSubstring("in Europe/Lisbon (check #2)")), "the fork child, by its headers")
	})

	It("replays green with the MCP server gone", func(ctx SpecContext) {
		before := asked.Load()
		s := startServe(ctx, bin, dir, "--runtime", "mcp-agent-served")
		Expect(runServed(ctx, s.url, dir)).To(Succeed())
		code, out := s.stop()
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("fork/what-time: replay matches the recording"))
		Expect(asked.Load()).To(Equal(before), "the replay asked no MCP server")
	}, NodeTimeout(2*time.Minute))

	It("fails the replay naming an MCP request the recording lacks", func(ctx SpecContext) {
		s := startServe(ctx, bin, dir, "--runtime", "mcp-agent-served")
		Expect(runServed(ctx, s.url, dir)).To(Succeed())
		tools, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-agent", Version: "v1.0.0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: strings.TrimSuffix(s.url, "/v1") + "/mcp/clock", MaxRetries: -1}, nil)
		if err == nil { // the recording's one handshake is spent: this one may already fail
			_, err = tools.CallTool(ctx, &mcp.CallToolParams{Name: "now", Arguments: map[string]any{"zone": "Asia/Tokyo"}})
			_ = tools.Close()
		}
		Expect(err).To(MatchError(MatchRegexp(`fakellm: unrecorded tool call: session root \(session\.jsonl\): MCP request \S+ to server "clock" .*: the recording holds no answer to it`)))
		code, out := s.stop()
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("unrecorded tool call"))
	}, NodeTimeout(2*time.Minute))
})
