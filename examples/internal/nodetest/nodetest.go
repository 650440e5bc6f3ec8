// Package nodetest holds what the Go specs of the Node agents in examples/
// share: skipping (or, in CI, failing) without Node or the agent's
// packages, agentsnap serve as a process, the agent run against it, and a
// scripted OpenAI-compatible model for live recording. It is a Ginkgo
// helper, for those specs only.
package nodetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Kit is one Node agent's specs: the runtime name its fixtures are
// recorded under, its folder in the repository, the packages it imports
// from node_modules, and the agentsnap binary the specs run (Build).
type Kit struct {
	Runtime  string
	Folder   string // such as examples/vercel-ai
	Packages []string
	Bin      string
}

// Build builds the agentsnap CLI into a temporary folder, once per suite.
func (k *Kit) Build() {
	out := filepath.Join(GinkgoT().TempDir(), "agentsnap")
	cmd := exec.Command("go", "build", "-o", out, "github.com/agentsnap/agentsnap/cmd/agentsnap")
	if b, err := cmd.CombinedOutput(); err != nil {
		Fail(fmt.Sprintf("go build agentsnap: %v\n%s", err, b))
	}
	k.Bin = out
}

// Fixtures returns the agent's fixture folders.
func Fixtures() []string {
	dirs, err := harness.Discover("fixtures")
	if err != nil {
		panic(err)
	}
	return dirs
}

// Entries is a table entry per fixture folder.
func Entries() []TableEntry {
	var out []TableEntry
	for _, dir := range Fixtures() {
		out = append(out, Entry(harness.Name(dir), dir))
	}
	return out
}

// Require skips the spec, saying how to run it, when node or the agent's
// packages are missing — or fails it when AGENTSNAP_REQUIRE_NODE=1 (CI
// sets it, so CI never skips them).
func (k *Kit) Require() {
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else {
		for _, p := range k.Packages {
			if _, err := os.Stat(filepath.Join("node_modules", p, "package.json")); err != nil {
				missing = k.Folder + "/node_modules has no " + p + " package"
				break
			}
		}
	}
	if missing == "" {
		return
	}
	hint := "install Node.js 20 or later and the agent's packages: npm ci --prefix " + k.Folder + " (from the repository root); or set AGENTSNAP_SKIP_NODE=1 to skip the node specs"
	if os.Getenv("AGENTSNAP_SKIP_NODE") == "1" {
		Skip(k.Runtime + ": " + missing + " (AGENTSNAP_SKIP_NODE=1)")
	}
	if os.Getenv("AGENTSNAP_REQUIRE_NODE") == "1" {
		Fail(fmt.Sprintf("%s: %s; %s", k.Runtime, missing, hint))
	}
	Skip(fmt.Sprintf("%s: %s; %s", k.Runtime, missing, hint))
}

// Environ is the specs' environment without the variables named, plus
// the extra NAME=VALUE pairs.
func Environ(drop []string, extra ...string) []string {
	out := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, name)
	})
	return append(out, extra...)
}

// Served is one agentsnap serve process.
type Served struct {
	URL    string
	cmd    *exec.Cmd
	out    bytes.Buffer // stdout after the URL line
	errb   bytes.Buffer
	copied chan struct{}
}

// Serve starts "agentsnap serve ARGS" in the environment env (nil: the
// specs' own) and reads the URL it prints first.
func (k *Kit) Serve(ctx context.Context, env []string, args ...string) *Served {
	s := &Served{cmd: exec.CommandContext(ctx, k.Bin, append([]string{"serve"}, args...)...), copied: make(chan struct{})}
	s.cmd.Env = env
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
	s.URL = strings.TrimSuffix(line, "\n")
	return s
}

// Stop sends SIGINT, as Ctrl-C does, and returns the exit code and the
// output after the URL line (stdout, then stderr).
func (s *Served) Stop() (int, string) {
	Expect(s.cmd.Process.Signal(os.Interrupt)).To(Succeed())
	<-s.copied // all of stdout is read before Wait closes the pipe
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(fmt.Sprintf("agentsnap serve: %v", err))
	}
	return s.cmd.ProcessState.ExitCode(), s.out.String() + s.errb.String()
}

// Agent runs node agent.mjs against url with the scenario in dir.
func Agent(ctx context.Context, url, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "node", "agent.mjs", url, dir).CombinedOutput()
	return string(out), err
}

// CLI runs "agentsnap ARGS" in env and returns its exit code and output.
func (k *Kit) CLI(ctx context.Context, env []string, args ...string) (int, string) {
	cmd := exec.CommandContext(ctx, k.Bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(fmt.Sprintf("agentsnap %s: %v", strings.Join(args, " "), err))
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// Run serves dir with the serve flags args, runs the agent against it
// with the scenario in agentDir, stops serve and returns its exit code and
// verdict. The agent must exit 0.
func (k *Kit) Run(ctx context.Context, env []string, dir, agentDir string, args ...string) (int, string) {
	s := k.Serve(ctx, env, append([]string{dir, "--runtime", k.Runtime}, args...)...)
	out, err := Agent(ctx, s.URL, agentDir)
	code, verdict := s.Stop()
	Expect(err).NotTo(HaveOccurred(), "node agent.mjs:\n%s\nagentsnap serve:\n%s", out, verdict)
	return code, verdict
}

// Accept accepts the golden proposal a recording or replay left in dir,
// as -update does for a Go runtime: serve itself has no flag for it.
func (k *Kit) Accept(ctx context.Context, dir string) {
	code, out := k.CLI(ctx, nil, "review", "--accept", dir)
	Expect(code).To(Equal(0), out)
}

// RecordIfAsked re-records dir from its playbook (or live, when
// AGENTSNAP_BASE_URL and AGENTSNAP_MODEL are set) when AGENTSNAP_RECORD
// matches its CATEGORY/NAME, as the harness's -record does for a Go
// runtime; with -update it also accepts the new transcript.
func (k *Kit) RecordIfAsked(ctx context.Context, dir string) {
	asked, err := harness.RecordAsked(dir)
	Expect(err).NotTo(HaveOccurred())
	if !asked {
		return
	}
	var args []string
	if os.Getenv("AGENTSNAP_BASE_URL") != "" && os.Getenv("AGENTSNAP_MODEL") != "" {
		args = append(args, "--live")
	}
	code, verdict := k.Run(ctx, nil, dir, dir, append([]string{"--record"}, args...)...)
	Expect(code).To(Equal(0), verdict)
	GinkgoWriter.Print(verdict)
	if harness.UpdateRequested() && Exists(filepath.Join(dir, fixture.ProposalFile)) {
		k.Accept(ctx, dir)
	}
}

// CopyFixture copies the files of fixture dir named (all when none are)
// into a fresh CATEGORY/NAME folder under a temporary folder.
func CopyFixture(dir string, names ...string) string {
	dst := filepath.Join(GinkgoT().TempDir(), harness.Name(dir))
	Expect(os.MkdirAll(dst, 0o755)).To(Succeed())
	ents, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range ents {
		if e.IsDir() || (len(names) > 0 && !slices.Contains(names, e.Name())) || e.Name() == fixture.ProposalFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)).To(Succeed())
	}
	return dst
}

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
