package nodeagent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// runtimeName is the name the agent's fixtures are recorded under.
const runtimeName = "node-agent"

// installHint is how to get what these specs need.
const installHint = "install Node.js 20 or later and the agent's packages: npm ci --prefix examples/node-agent (from the repository root); or set AGENTSNAP_SKIP_NODE=1 to skip the node specs"

// bin is the agentsnap binary the specs run, built once.
var bin string

// fixtures returns the agent's fixture folders.
func fixtures() []string {
	dirs, err := harness.Discover("fixtures")
	if err != nil {
		panic(err)
	}
	return dirs
}

func entries() []TableEntry {
	var out []TableEntry
	for _, dir := range fixtures() {
		out = append(out, Entry(harness.Name(dir), dir))
	}
	return out
}

// requireNode skips the specs, saying how to run them, when node or the
// agent's packages are missing — or fails them when AGENTSNAP_REQUIRE_NODE=1
// (CI sets it, so CI never skips them).
func requireNode() {
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join("node_modules", "openai", "package.json")); err != nil {
		missing = "examples/node-agent/node_modules has no openai package"
	}
	if missing == "" {
		return
	}
	if os.Getenv("AGENTSNAP_SKIP_NODE") == "1" {
		Skip("node-agent: " + missing + " (AGENTSNAP_SKIP_NODE=1)")
	}
	if os.Getenv("AGENTSNAP_REQUIRE_NODE") == "1" {
		Fail(fmt.Sprintf("node-agent: %s; %s", missing, installHint))
	}
	Skip(fmt.Sprintf("node-agent: %s; %s", missing, installHint))
}

// buildAgentsnap builds the CLI into a temporary folder.
func buildAgentsnap() string {
	out := filepath.Join(GinkgoT().TempDir(), "agentsnap")
	cmd := exec.Command("go", "build", "-o", out, "github.com/agentsnap/agentsnap/cmd/agentsnap")
	if b, err := cmd.CombinedOutput(); err != nil {
		Fail(fmt.Sprintf("go build agentsnap: %v\n%s", err, b))
	}
	return out
}

// served is one agentsnap serve process.
type served struct {
	cmd    *exec.Cmd
	url    string
	out    bytes.Buffer // stdout after the URL line
	errb   bytes.Buffer
	copied chan struct{}
}

// serve starts "agentsnap serve ARGS" and reads the URL it prints first.
func serve(ctx context.Context, args ...string) *served {
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
		Fail(fmt.Sprintf("agentsnap serve %s printed no URL line:\n%s%s", strings.Join(args, " "), s.out.String(), s.errb.String()))
	}
	s.url = strings.TrimSuffix(line, "\n")
	return s
}

// stop sends SIGINT, as Ctrl-C does, and returns the exit code and the
// output after the URL line (stdout, then stderr).
func (s *served) stop() (int, string) {
	Expect(s.cmd.Process.Signal(os.Interrupt)).To(Succeed())
	<-s.copied // all of stdout is read before Wait closes the pipe
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(fmt.Sprintf("agentsnap serve: %v", err))
	}
	return s.cmd.ProcessState.ExitCode(), s.out.String() + s.errb.String()
}

// agent runs node agent.mjs against url with the scenario in dir.
func agent(ctx context.Context, url, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "node", "agent.mjs", url, dir).CombinedOutput()
	return string(out), err
}

// recordIfAsked re-records dir from its playbook (or live, when
// AGENTSNAP_BASE_URL and AGENTSNAP_MODEL are set) when AGENTSNAP_RECORD
// matches its CATEGORY/NAME, as the harness's -record does for a Go runtime.
func recordIfAsked(ctx context.Context, dir string) {
	asked, err := harness.RecordAsked(dir)
	Expect(err).NotTo(HaveOccurred())
	if !asked {
		return
	}
	args := []string{dir, "--record", "--runtime", runtimeName}
	if os.Getenv("AGENTSNAP_BASE_URL") != "" && os.Getenv("AGENTSNAP_MODEL") != "" {
		args = append(args, "--live")
	}
	s := serve(ctx, args...)
	out, err := agent(ctx, s.url, dir)
	Expect(err).NotTo(HaveOccurred(), "node agent.mjs:\n%s", out)
	code, verdict := s.stop()
	Expect(code).To(Equal(0), verdict)
	GinkgoWriter.Print(verdict)
}

var _ = Describe("the Node agent, replayed out of process by agentsnap serve", Ordered, Label("node"), func() {
	BeforeAll(func() {
		requireNode()
		bin = buildAgentsnap()
	})

	DescribeTable("replays its fixture: every session, children at once, exit 0 after SIGINT",
		func(dir string) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			recordIfAsked(ctx, dir)
			s := serve(ctx, dir, "--runtime", runtimeName)
			Expect(s.url).To(MatchRegexp(`^http://127\.0\.0\.1:\d+/v1$`))
			out, err := agent(ctx, s.url, dir)
			Expect(err).NotTo(HaveOccurred(), "node agent.mjs:\n%s", out)
			code, verdict := s.stop()
			Expect(code).To(Equal(0), verdict)
			Expect(verdict).To(MatchRegexp(`^%s: replay matches the recording \(\d+ sessions, \d+ model calls\)\n$`, regexp.QuoteMeta(harness.Name(dir))))
		},
		entries(),
	)

	It("exits 1 and names the drift when the agent sends another system prompt", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dir := filepath.Join("fixtures", "mixed", "delegation")
		// The agent gets a changed scenario; serve replays the recording.
		agentDir := GinkgoT().TempDir()
		b, err := os.ReadFile(filepath.Join(dir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		changed := bytes.Replace(b, []byte("You are a Node agent."), []byte("You are a changed Node agent."), 1)
		Expect(changed).NotTo(Equal(b))
		Expect(os.WriteFile(filepath.Join(agentDir, scenario.File), changed, 0o644)).To(Succeed())

		s := serve(ctx, dir, "--runtime", runtimeName)
		_, _ = agent(ctx, s.url, agentDir) // what the agent makes of it is the replay's business
		code, verdict := s.stop()
		Expect(code).To(Equal(1), verdict)
		Expect(verdict).To(ContainSubstring("mixed/delegation: the replay does not match the recording"))
		Expect(verdict).To(MatchRegexp(`request drift: .*the system prompt changed`))
		Expect(verdict).To(ContainSubstring("go tool agentsnap serve " + dir + " --record --runtime node-agent"))
	})

	It("exits 1 and names the calls never replayed when the agent stops early", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dir := filepath.Join("fixtures", "mixed", "delegation")
		// The agent gets only the first prompt; serve replays all three.
		var sc map[string]any
		b, err := os.ReadFile(filepath.Join(dir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(b, &sc)).To(Succeed())
		sc["prompts"] = sc["prompts"].([]any)[:1]
		agentDir := GinkgoT().TempDir()
		b, err = json.Marshal(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(agentDir, scenario.File), b, 0o644)).To(Succeed())

		s := serve(ctx, dir, "--runtime", runtimeName)
		out, err := agent(ctx, s.url, agentDir)
		Expect(err).NotTo(HaveOccurred(), "node agent.mjs:\n%s", out)
		Expect(out).To(Equal("OK\n"))
		code, verdict := s.stop()
		Expect(code).To(Equal(1), verdict)
		Expect(verdict).To(ContainSubstring("mixed/delegation: the replay does not match the recording"))
		Expect(verdict).To(MatchRegexp(`replay driver:\n\s+fakellm: recording not consumed`))
		Expect(verdict).To(MatchRegexp(`session root/call_fork \(fork; session\.1\.jsonl\): never called`))
	})
})
