package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// serveFixture is a fixture recorded by serve --record from goAgent: a
// fact in turn 1, then a fork, a lookup and a spawn in one step, the
// children at once.
const serveFixture = "testdata/serve/mixed/go-agent"

// serving is a serve command running in process, stopped by cancelling
// its context: what SIGINT does to the real one.
type serving struct {
	url    string
	cancel context.CancelFunc
	code   chan int
	copied chan struct{}
	out    bytes.Buffer // stdout after the URL line; read after stop
	errb   bytes.Buffer // stderr; read after stop
}

// startServe runs "agentsnap ARGS" and waits for the URL line.
func startServe(environ map[string]string, args ...string) *serving {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &serving{cancel: cancel, code: make(chan int, 1), copied: make(chan struct{})}
	getenv, _ := testEnv(environ) // CI is the process's (fixture.WritesRefused)
	e := &env{stdout: pw, stderr: &s.errb, getenv: getenv}
	go func() {
		code := run(ctx, e, args)
		pw.Close()
		s.code <- code
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	go func() {
		io.Copy(&s.out, br)
		close(s.copied)
	}()
	if err != nil {
		code, stdout, stderr := s.stop()
		Fail(fmt.Sprintf("serve printed no URL line (exit %d):\n%s%s", code, stdout, stderr))
	}
	s.url = strings.TrimSuffix(line, "\n")
	return s
}

// stop cancels serve (SIGINT) and returns its exit code and output.
func (s *serving) stop() (int, string, string) {
	s.cancel()
	var code int
	Eventually(s.code).WithTimeout(30 * time.Second).Should(Receive(&code))
	<-s.copied
	return code, s.out.String(), s.errb.String()
}

// copyFixture copies the committed Go fixture (all files, or only those
// named) into a new folder CATEGORY/NAME.
func copyFixture(only ...string) string {
	dst := filepath.Join(GinkgoT().TempDir(), "mixed", "go-agent")
	Expect(os.MkdirAll(dst, 0o755)).To(Succeed())
	if len(only) == 0 {
		Expect(os.CopyFS(dst, os.DirFS(serveFixture))).To(Succeed())
		return dst
	}
	for _, name := range only {
		b, err := os.ReadFile(filepath.Join(serveFixture, name))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dst, name), b, 0o644)).To(Succeed())
	}
	return dst
}

var _ = Describe("agentsnap serve", func() {
	It("replays a fixture to an openai-go agent over HTTP, children at once, and exits 0 when stopped", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		Expect(s.url).To(MatchRegexp(`^http://127\.0\.0\.1:\d+/v1$`))
		Expect(runGoAgent(context.Background(), s.url, serveFixture)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(Equal("mixed/go-agent: replay matches the recording (3 sessions, 6 model calls)\n"))
	})

	It("collects garbage again once it serves, and after a fixture it could not load", func() {
		// Reading the percentage means setting it; set it back at once.
		gcPercent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
		before := gcPercent()
		Expect(before).NotTo(Equal(-1))
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		Expect(gcPercent()).To(Equal(before), "the collector is still off while serve serves")
		s.stop()

		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		Expect(run(context.Background(), e, []string{"serve", GinkgoT().TempDir()})).To(Equal(exitFail), out.String()+errb.String())
		Expect(gcPercent()).To(Equal(before), "the collector is still off after serve gave up")
	})

	It("exits 1 and names the drift when the agent sends another system prompt", func() {
		agentDir := copyFixture(scenario.File)
		b, err := os.ReadFile(filepath.Join(agentDir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(agentDir, scenario.File), bytes.Replace(b, []byte("You are a Go agent."), []byte("You are a changed Go agent."), 1), 0o644)).To(Succeed())

		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		_ = runGoAgent(context.Background(), s.url, agentDir) // what it gets back is the replay's business
		code, out, _ := s.stop()
		Expect(code).To(Equal(1))
		Expect(out).To(MatchRegexp(`request drift: .*the system prompt changed`))
		Expect(out).To(ContainSubstring("go tool agentsnap serve " + serveFixture + " --record --runtime go-agent"))
	})

	It("exits 1 when stopped before the agent called, saying so", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		code, out, stderr := s.stop()
		Expect(code).To(Equal(1))
		Expect(out).To(BeEmpty())
		Expect(stderr).To(Equal("agentsnap serve: mixed/go-agent: no model call reached serve before it stopped, so nothing was replayed; run the agent against the URL serve prints first, then stop serve\n"))
	})

	It("exits 1 when stopped after some of the recorded calls, naming what was not replayed", func() {
		s := startServe(nil, "serve", serveFixture, "--runtime", "go-agent")
		a, prompts := goAgent(s.url, serveFixture)
		Expect(a.Run(context.Background(), prompts[:1])).To(Succeed())
		code, out, _ := s.stop()
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring("mixed/go-agent: the replay does not match the recording"))
		Expect(out).To(ContainSubstring("replay driver:"))
	})

	It("records the agent's fixture from the playbook, byte for byte as committed", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(HavePrefix("recorded " + dir + ": 3 sessions, 6 model calls\n"))
		for _, name := range []string{scenario.File, "session.jsonl", "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			Expect(readFile(filepath.Join(dir, name))).To(Equal(readFile(filepath.Join(serveFixture, name))), name)
		}
	})

	It("records nothing when stopped before the agent used the playbook", func() {
		dir := copyFixture()
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		code, _, stderr := s.stop()
		Expect(code).To(Equal(1))
		Expect(stderr).To(ContainSubstring("the fixture is unchanged"))
		for _, name := range []string{scenario.File, "session.jsonl", fixture.GoldenFile} {
			Expect(readFile(filepath.Join(dir, name))).To(Equal(readFile(filepath.Join(serveFixture, name))), name)
		}
	})

	It("records from a live model: every call goes to --model, the logs keep what the agent sent, the key never", func() {
		const key = "sk-serve-test-0123456789"
		var mu sync.Mutex
		var models, auth []string
		live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct{ Model string }
			_ = json.NewDecoder(r.Body).Decode(&req)
			mu.Lock()
			models, auth = append(models, req.Model), append(auth, r.Header.Get("Authorization"))
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"OK\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}))
		DeferCleanup(live.Close)
		dir := filepath.Join(GinkgoT().TempDir(), "billing", "live")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."], "agent": {"system": "You are terse."}}`), 0o644)).To(Succeed())

		s := startServe(map[string]string{"AGENTSNAP_API_KEY": key}, "serve", dir, "--record", "--runtime", "go-agent", "--live", "--base-url", live.URL+"/v1", "--model", "real-model")
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		mu.Lock()
		Expect(models).To(Equal([]string{"real-model"}))
		Expect(auth).To(Equal([]string{"Bearer " + key}))
		mu.Unlock()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded).To(HaveField("Model", "real-model"))
		Expect(fx.Scenario.Recorded).To(HaveField("Runtime", "go-agent"))
		Expect(fx.Logs[0].Events).To(ContainElement(HaveField("Type", session.TypeRequestHeader)))
		Expect(readFile(filepath.Join(dir, "session.jsonl"))).To(And(ContainSubstring(`"model":"`+goAgentModel+`"`), Not(ContainSubstring(key))))
	})

	DescribeTable("refuses an address off this machine",
		func(addr string) {
			// Stopped before it starts: were the address taken, serve would not hang the spec.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var out, errb bytes.Buffer
			code := run(ctx, &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, []string{"serve", serveFixture, "--runtime", "go-agent", "--addr", addr})
			Expect(code).To(Equal(2))
			Expect(errb.String()).To(HavePrefix(fmt.Sprintf("agentsnap serve: --addr %q is not a loopback address;", addr)))
			Expect(out.String()).To(BeEmpty())
		},
		Entry("every interface", ":0"),
		Entry("every IPv4 interface", "0.0.0.0:0"),
		Entry("a private address", "192.168.1.10:8080"),
		Entry("a host name", "example.com:8080"),
	)

	It("refuses to replay under another runtime name, naming the one that recorded it", func() {
		r := cli("", nil, "serve", serveFixture)
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(HavePrefix(`agentsnap serve: mixed/go-agent was recorded with the runtime "go-agent", and this serves "external"; give --runtime go-agent`))
	})

	It("explains itself: the URL line, the headers, the stop, the recording", func() {
		r := cli("", nil, "help", "serve")
		Expect(r.code).To(Equal(0))
		Expect(r.stdout).To(HavePrefix("usage: agentsnap serve DIR [--addr HOST:PORT] [--runtime NAME] [--lineage explicit|infer] [--record [--live --base-url URL --model M [--api API]]"))
		for _, s := range []string{"first line of the output is the base URL", "Agentsnap-Session", "Agentsnap-Parent", "Agentsnap-Call", "Agentsnap-Mode", "SIGINT", "--runtime NAME", "all or nothing", "--lineage=infer", "recorded as\nthe agent sent it"} {
			Expect(r.stdout).To(ContainSubstring(s))
		}
		Expect(r.stdout).To(MatchRegexp(`\(default\s+external\)`))
		Expect(cli("", nil).stderr).To(MatchRegexp(`(?m)^  serve +serve a scenario as a model endpoint \(OpenAI, Anthropic, Gemini APIs\)`))
	})
})
