package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// treeAimock answers the tree scenario (a fact, a spawned helper that
// looks the release up, a fork that recalls the fact) and the changed
// last prompt, which forks under another call id. aimock takes the first
// fixture that matches: tool results by their call id, then the last user
// message.
const treeAimock = `{"fixtures": [
  {"match": {"toolCallId": "call_l"}, "response": {"content": "v2.4.1"}},
  {"match": {"toolCallId": "call_rel"}, "response": {"content": "The release is v2.4.1."}},
  {"match": {"toolCallId": "call_cw"}, "response": {"content": "The codeword is MARMALADE."}},
  {"match": {"toolCallId": "call_cw2"}, "response": {"content": "Codeword: MARMALADE."}},
  {"match": {"userMessage": "The codeword is MARMALADE. Reply OK."}, "response": {"content": "OK"}},
  {"match": {"userMessage": "Spawn a helper to look up the release."}, "response": {"toolCalls": [
    {"id": "call_rel", "name": "subagent_spawn", "arguments": "{\"description\":\"release\",\"prompt\":\"Look up the release.\"}"}]}},
  {"match": {"userMessage": "Look up the release."}, "response": {"toolCalls": [{"id": "call_l", "name": "lookup", "arguments": "{\"key\":\"release\"}"}]}},
  {"match": {"userMessage": "Fork a child to recall the codeword, please."}, "response": {"toolCalls": [
    {"id": "call_cw2", "name": "subagent_fork", "arguments": "{\"description\":\"recall\",\"prompt\":\"What was the codeword?\"}"}]}},
  {"match": {"userMessage": "Fork a child to recall the codeword."}, "response": {"toolCalls": [
    {"id": "call_cw", "name": "subagent_fork", "arguments": "{\"description\":\"recall\",\"prompt\":\"What is the codeword?\"}"}]}},
  {"match": {"userMessage": "What is the codeword?"}, "response": {"content": "MARMALADE"}},
  {"match": {"userMessage": "What was the codeword?"}, "response": {"content": "It was MARMALADE"}}
]}`

// counted is a reverse proxy in front of a model server that counts the
// chat completions it passes on.
type counted struct {
	*httptest.Server
	mu    sync.Mutex
	calls int
}

func countedProxy(target string) *counted {
	u, err := url.Parse(target)
	Expect(err).NotTo(HaveOccurred())
	c := &counted{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // stream as the server streams
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			c.mu.Lock()
			c.calls++
			c.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	DeferCleanup(c.Close)
	return c
}

// take returns the calls counted since the last take.
func (c *counted) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.calls
	c.calls = 0
	return n
}

// treeFixture writes the tree scenario into root/fixtures/custom/tree.
func treeFixture(root string) string {
	dir := filepath.Join(root, "fixtures", "custom", "tree")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{
  "description": "A tree recorded live: a fact, a spawned helper, a fork.",
  "prompts": ["The codeword is MARMALADE. Reply OK.", "Spawn a helper to look up the release.", "Fork a child to recall the codeword."],
  "agent": {"system": "You are a careful assistant.", "tools": ["lookup", "subagent_spawn", "subagent_fork"]},
  "maxDepth": 2,
  "data": {"release": "v2.4.1"},
  "prices": {"gpt-4o": {"input": 2.5, "output": 10}}
}
`), 0o644)).To(Succeed())
	return dir
}

var _ = Describe("agentsnap record --only-changed against aimock, an independent live server", func() {
	It("sends only the calls from the changed last prompt on, keeps the untouched logs byte-identical, and checks green", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, treeAimock)
		live := countedProxy(srv.URL)
		root := GinkgoT().TempDir()
		dir := treeFixture(root)
		env := map[string]string{"AGENTSNAP_API_KEY": "aimock-test-key-0123456789"}
		args := []string{"fixtures/custom/tree", "--live", "--base-url", live.URL + "/v1", "--model", "gpt-4o", "--replace-golden"}

		r := cli(root, env, append([]string{"record"}, args...)...)
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
		Expect(live.take()).To(Equal(8))
		helper := readFile(filepath.Join(dir, fixture.ChildLog(1)))

		b, err := os.ReadFile(filepath.Join(dir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(strings.Replace(string(b), "recall the codeword.", "recall the codeword, please.", 1)), 0o644)).To(Succeed())
		r = cli(root, env, append([]string{"record", "--only-changed"}, args...)...)
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
		Expect(live.take()).To(Equal(3), "the root's 4th and 5th calls and the new fork's one")
		Expect(r.stdout).To(ContainSubstring("only changed: 5 model calls replayed from the recording, 3 sent to the model: "))
		Expect(r.stdout).To(MatchRegexp(`3 sent to the model: \d+ tokens \(\d+ input, \d+ output\), cost 0\.\d+`))
		Expect(r.stdout).To(ContainSubstring("root: re-recorded from model call 4 (turn 3 step 1), 2 calls sent to the model"))
		Expect(r.stdout).To(ContainSubstring("root/call_cw2: new, 1 call sent to the model"))
		Expect(r.stdout).To(ContainSubstring("kept as recorded: root/call_rel"))
		Expect(r.stdout).To(ContainSubstring("no longer created: root/call_cw"))
		Expect(readFile(filepath.Join(dir, fixture.ChildLog(1)))).To(Equal(helper))
		Expect(readFile(filepath.Join(dir, fixture.ChildLog(2)))).To(ContainSubstring("It was MARMALADE"))

		r = cli(root, nil, "check", "fixtures/custom/tree") // replay never dials

		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
	})
})

var _ = Describe("agentsnap serve --record --only-changed", func() {
	It("replays the agent's calls that still match and answers the rest from the playbook, then replays green", func() {
		dir := copyFixture()
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, []byte(strings.Replace(string(b), "all at once.", "all at once, please.", 1)), 0o644)).To(Succeed())

		s := startServe(nil, "serve", dir, "--record", "--only-changed", "--replace-golden", "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(ContainSubstring("only changed: 1 model call replayed from the recording, 5 sent to the model"))
		Expect(out).To(ContainSubstring("root: re-recorded from model call 2 (turn 2 step 1), 2 calls sent to the model"))
		Expect(readFile(filepath.Join(dir, fixture.RootLog))).To(ContainSubstring("all at once, please."))

		s = startServe(nil, "serve", dir, "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr = s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(ContainSubstring("replay matches the recording (3 sessions, 6 model calls)"))
	})
})

var _ = Describe("agentsnap record --only-changed and --session, usage", func() {
	It("refuses a --session that is no lineage path", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, nil, "record", "fixtures/fork/codeword", "--session", "call_fork_1")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring(`--session "call_fork_1": give a lineage path such as root or root/call_1`))
	})

	It("refuses an empty --session (an unset variable) instead of re-recording every session, and writes nothing", func() {
		root := fixtureCopy("fork/codeword")
		before := treeDigest(filepath.Join(root, "fixtures"))
		for _, args := range [][]string{{"record", "fixtures/fork/codeword", "--session", ""}, {"record", "fixtures/fork/codeword", "--session="}, {"serve", "fixtures/fork/codeword", "--record", "--runtime", "go-agent", "--session", ""}} {
			r := cli(root, nil, args...)
			Expect(r.code).To(Equal(2), "%q", args)
			Expect(r.stderr).To(ContainSubstring("--session is empty; give a lineage path such as root or root/call_1, as the summary of --only-changed shows them, or leave --session out to re-record every session"), "%q", args)
			Expect(r.stdout).To(BeEmpty(), "%q", args)
		}
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before))
	})

	It("names the recorded sessions when --session names none of them, and writes nothing", func() {
		root := fixtureCopy("fork/codeword")
		before := readFile(filepath.Join(root, "fixtures/fork/codeword", fixture.RootLog))
		r := cli(root, nil, "record", "fixtures/fork/codeword", "--session", "root/call_x")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("--session root/call_x names no recorded session; the recording has root, root/call_fork_1"))
		Expect(readFile(filepath.Join(root, "fixtures/fork/codeword", fixture.RootLog))).To(Equal(before))
	})

	It("refuses --only-changed and --session on serve without --record", func() {
		for _, flag := range [][]string{{"--only-changed"}, {"--session", "root"}} {
			r := cli("", nil, append([]string{"serve", serveFixture, "--runtime", "go-agent"}, flag...)...)
			Expect(r.code).To(Equal(2))
			Expect(r.stderr).To(ContainSubstring("--only-changed, --session and --mcp only apply with --record"))
		}
	})

	It("documents both in record's help", func() {
		r := cli("", nil, "help", "record")
		Expect(r.stdout).To(ContainSubstring("--only-changed re-records only what changed"))
		Expect(r.stdout).To(ContainSubstring("--session PATH"))
	})
})
