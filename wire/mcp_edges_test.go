package wire_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
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

var _ = Describe("an agent's MCP requests in an only-changed recording (recorder.Options.OnlyChanged)", func() {
	var (
		dir    string
		before map[string][]byte
	)
	BeforeEach(func() {
		dir = newFixture("fork/mcp-only-changed", mcpScenario, mcpPlaybook)
		_, err := recordWith(dir, mcpRuntime(&mcpServer{}))
		Expect(err).NotTo(HaveOccurred())
		before = logFiles(dir)
	})
	reRecord := func(server *mcpServer, session string) {
		GinkgoHelper()
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime, opts.OnlyChanged, opts.Session = mcpRuntime(server), true, session
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
	}

	It("answers a session that still replays from the recording, so a server whose answers changed is not asked", func() {
		server := &mcpServer{}
		server.calls.Store(100) // it would answer "release #101" now
		reRecord(server, "")
		Expect(server.calls.Load()).To(Equal(int64(100)), "the server was asked")
		Expect(logFiles(dir)).To(Equal(before))
	})

	It("asks the server for a session recorded anew, and records its new answer", func() {
		server := &mcpServer{}
		server.calls.Store(100)
		reRecord(server, "root/call_f")
		Expect(server.calls.Load()).To(Equal(int64(101)), "the fork child's lookup, and nothing else")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(mcpAnswers(fx.Logs[1].Own())).To(Equal([]string{`tools/call {"content":[{"type":"text","text":"release #101"}]}`}))
		Expect(mcpAnswers(fx.Logs[0].Events)).To(ContainElement(`tools/call {"content":[{"type":"text","text":"release #2"}]}`), "the root kept its recorded answer")
	})
})

// logFiles returns the session logs of dir with their bytes.
func logFiles(dir string) map[string][]byte {
	GinkgoHelper()
	paths, err := filepath.Glob(filepath.Join(dir, "session*.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		out[filepath.Base(p)] = b
	}
	return out
}
