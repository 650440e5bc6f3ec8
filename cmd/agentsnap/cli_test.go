package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/unprivileged"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// result is one CLI run.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs agentsnap with args in dir with the given environment.
func cli(dir string, environ map[string]string, args ...string) result {
	GinkgoHelper()
	var out, errb bytes.Buffer
	getenv, asked := testEnv(environ)
	e := &env{stdout: &out, stderr: &errb, getenv: getenv, dir: dir}
	code := run(context.Background(), e, args)
	asked()
	return result{code, out.String(), errb.String()}
}

// processVars are the variables the CLI reads from the process, never
// through env.getenv: whether fixture files may be written
// (fixture.WritesRefused) is one rule for the CLI, judge and the harness.
// A spec sets them with GinkgoT().Setenv.
var processVars = []string{"CI", "AGENTSNAP_FORCE_UPDATE"}

// testEnv returns an env.getenv over environ, which must not set a
// process variable, and a check to call once the command returned: that
// it never asked getenv for one.
func testEnv(environ map[string]string) (getenv func(string) string, check func()) {
	GinkgoHelper()
	for _, k := range processVars {
		_, set := environ[k]
		Expect(set).To(BeFalse(), "%s in a CLI spec's environment: the CLI reads it from the process (fixture.WritesRefused), as judge and the harness do; set it with GinkgoT().Setenv", k)
	}
	var mu sync.Mutex
	var asked []string
	getenv = func(k string) string {
		if slices.Contains(processVars, k) { // maybe on another goroutine: checked after the run
			mu.Lock()
			asked = append(asked, k)
			mu.Unlock()
		}
		return environ[k]
	}
	check = func() {
		GinkgoHelper()
		mu.Lock()
		defer mu.Unlock()
		Expect(asked).To(BeEmpty(), "the CLI read %v through env.getenv; it reads them from the process (fixture.WritesRefused)", asked)
	}
	return getenv, check
}

// fixtureCopy copies committed fixtures into a temporary module-less
// folder as root/fixtures/<dst>, each from its src: "dst=src", or "name"
// for a copy under the same name.
func fixtureCopy(copies ...string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	for _, c := range copies {
		dst, src, ok := strings.Cut(c, "=")
		if !ok {
			src = dst
		}
		dir := filepath.Join(root, "fixtures", dst)
		Expect(os.MkdirAll(filepath.Dir(dir), 0o755)).To(Succeed())
		Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "fixtures", src)))).To(Succeed())
	}
	return root
}

// tornFixture copies fork/codeword as fixtureCopy does and tears the last
// line of its child's log, as a crash in the middle of a write leaves it.
// It returns the root, the scenario's folder and the log torn.
func tornFixture() (root, dir, log string) {
	GinkgoHelper()
	root = fixtureCopy("fork/codeword")
	dir = filepath.Join(root, "fixtures/fork/codeword")
	log = filepath.Join(dir, fixture.ChildLog(1))
	b, err := os.ReadFile(log)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(log, b[:len(b)-40], 0o644)).To(Succeed())
	return root, dir, log
}

var _ = Describe("agentsnap", func() {
	It("lists its commands and exits 2 without one", func() {
		r := cli("", nil)
		Expect(r.code).To(Equal(2))
		for _, name := range []string{"inspect", "derive", "convert", "check", "new", "record", "help"} {
			Expect(r.stderr).To(MatchRegexp(`(?m)^  ` + name + ` `))
		}
	})

	It("explains a command with help", func() {
		r := cli("", nil, "help", "record")
		Expect(r.code).To(Equal(0))
		Expect(r.stdout).To(HavePrefix("usage: agentsnap record DIR [--live --base-url URL --model M"))
	})

	It("refuses an unknown command", func() {
		r := cli("", nil, "replay")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(HavePrefix(`agentsnap: unknown command "replay"`))
	})
})

var _ = Describe("agentsnap inspect", func() {
	It("shows a fork child's lineage, seed boundary and turns", func() {
		r := cli(filepath.Join("..", ".."), nil, "inspect", "fixtures/fork/codeword/session.1.jsonl")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("lineage   child of root via call call_fork_1 (fork), depth 1, origin subagent"))
		Expect(r.stdout).To(MatchRegexp(`seed      (\d+) inherited events \(seq 0-\d+\); own events from seq \d+`))
		Expect(r.stdout).To(ContainSubstring("    turn 1  1 step  1 model call  ended completed  [inherited]  \"OK\"\n"))
		Expect(r.stdout).To(ContainSubstring("    turn 2  1 step  1 model call  ended completed               \"MARMALADE\"\n"))
	})

	It("shows the tree of a scenario folder", func() {
		r := cli(filepath.Join("..", ".."), nil, "inspect", "fixtures/mixed/fork-spawns-grandchild")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(MatchRegexp(`^tree:\n  \S+/session.jsonl\n    \S+/session.1.jsonl  fork via call_plan\n      \S+/session.2.jsonl  spawn via call_weather\n`))
	})

	DescribeTable("refuses bad input with the file and line",
		func(content, want string) {
			dir := GinkgoT().TempDir()
			path := filepath.Join(dir, "bad.jsonl")
			Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
			r := cli(dir, nil, "inspect", "bad.jsonl")
			Expect(r.code).To(Equal(1))
			Expect(r.stderr).To(HavePrefix("agentsnap inspect: "))
			Expect(r.stderr).To(ContainSubstring(want))
			Expect(os.ReadFile(path)).To(Equal([]byte(content)), "inspect never writes")
		},
		Entry("an empty file", "", "bad.jsonl:1: empty file"),
		Entry("another version", `{"type":"session","version":3,"id":"x","createdAt":0}`+"\n", "bad.jsonl:1: bad session header: session header has version 3"),
		Entry("a seq gap", `{"type":"session","version":0,"id":"x","createdAt":0}`+"\n"+`{"type":"a","seq":1,"time":0}`+"\n", "bad.jsonl:2: seq is not dense: seq is 1, expected 0"),
		Entry("seedLength past the end", `{"type":"session","version":0,"id":"x","createdAt":0,"seedLength":3}`+"\n", "bad.jsonl:1: seedLength is past the end of the log"),
	)

	It("refuses a missing path, naming it as given and what inspect takes", func() {
		r := cli(GinkgoT().TempDir(), nil, "inspect", "nope.jsonl")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(Equal("agentsnap inspect: nope.jsonl: no such file or folder; give a session log, a folder of logs (a scenario folder) or a SQLite database\n"))
	})

	// CI runs as root, which reads any file: unprivileged.Do drops that.
	It("says to fix the permissions of a log this user may not read, in a file or a folder", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		log := filepath.Join(dir, fixture.ChildLog(1))
		Expect(os.Chmod(log, 0)).To(Succeed())
		DeferCleanup(os.Chmod, log, fs.FileMode(0o644))
		for _, path := range []string{dir, log} {
			var r result
			Expect(unprivileged.Do(func() error { r = cli(root, nil, "inspect", path); return nil })).To(Succeed())
			Expect(r.code).To(Equal(exitBadData))
			Expect(r.stderr).To(HaveSuffix(log + ": permission denied; make it readable by this user (fix its permissions)\n"))
		}
	})
})

var _ = Describe("agentsnap new and record", func() {
	It("scaffold a scenario that records from its playbook and then checks green", func() {
		dir := GinkgoT().TempDir()
		r := cli(dir, nil, "new", "fork/x")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("agentsnap record fixtures/fork/x"))

		// A user edits the prompts and the playbook's answers.
		sc, err := scenario.Load(filepath.Join(dir, "fixtures/fork/x"))
		Expect(err).NotTo(HaveOccurred())
		sc.Prompts[0] = "Remember: the release is code-named HERON. Reply OK."
		Expect(sc.Save(filepath.Join(dir, "fixtures/fork/x"))).To(Succeed())

		r = cli(dir, nil, "record", "fixtures/fork/x")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("recorded fixtures/fork/x: 2 sessions, 4 model calls"))
		Expect(r.stderr).To(ContainSubstring("record fork/x: fork child via call_fork_1 (depth 1) turn 2 ended completed"))
		child, err := session.ReadFile(filepath.Join(dir, "fixtures/fork/x", fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(child.Header.SeedLength).To(BeNumerically(">", 0))

		r = cli(dir, nil, "check", "fixtures/...")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`fork/x\s+2\s+4\s+ok`))
	})

	It("refuses names that leave the fixtures folder", func() {
		dir := GinkgoT().TempDir()
		for _, name := range []string{"../x/y", "/etc/x", "fork/../../x", "fork", "fork/x/y", "Fork/X"} {
			r := cli(dir, nil, "new", name)
			Expect(r.code).To(Equal(1), name)
			Expect(r.stderr).To(ContainSubstring("bad scenario name"), name)
		}
		Expect(os.Symlink(os.TempDir(), filepath.Join(dir, "fixtures"))).To(Succeed())
		r := cli(dir, nil, "new", "fork/x")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("is a symlink"))
	})

	It("says what is missing: no scenario, --live without a key, a bad playbook", func() {
		dir := GinkgoT().TempDir()
		r := cli(dir, nil, "record", "fixtures/fork/none")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("is not a scenario folder; create one with: go tool agentsnap new CATEGORY/NAME"))

		Expect(cli(dir, nil, "new", "fork/x").code).To(Equal(0))
		r = cli(dir, map[string]string{"OPENAI_API_KEY": "sk-abcdefgh12345678"}, "record", "fixtures/fork/x", "--live", "--model", "m")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("--live needs the endpoint: give --base-url URL or set AGENTSNAP_BASE_URL"), "no public host is assumed")

		r = cli(dir, nil, "record", "fixtures/fork/x", "--live", "--model", "m", "--base-url", "http://127.0.0.1:1/v1")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("a live recording of OpenAI Chat Completions needs an API key: set AGENTSNAP_API_KEY, or OPENAI_API_KEY, or DEEPSEEK_API_KEY"))

		r = cli(dir, map[string]string{"OPENAI_API_KEY": "sk-abcdefgh12345678", "AGENTSNAP_BASE_URL": "http://127.0.0.1:1/v1"}, "record", "fixtures/fork/x", "--live")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("--live needs the model: give --model M or set AGENTSNAP_MODEL"))

		pb := filepath.Join(dir, "fixtures/fork/x", fixture.PlaybookFile)
		b, _ := os.ReadFile(pb)
		Expect(os.WriteFile(pb, []byte(strings.Replace(string(b), `"name": "subagent_fork"`, `"name": ""`, 1)), 0o644)).To(Succeed())
		r = cli(dir, nil, "record", "fixtures/fork/x")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("playbook.json: invalid playbook: sessions.root[1].toolCalls[0]: id and name are required"))
	})
})

var _ = Describe("agentsnap check", func() {
	It("passes the committed fixtures", func() {
		r := cli(filepath.Join("..", ".."), nil, "check")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`(?m)^SCENARIO\s+SESSIONS\s+MODEL CALLS\s+RESULT$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^parallel/nested-fan-out\s+7\s+11\s+ok$`))
	})

	It("exits 1 and prints the diff and the fixing command when a golden differs", func() {
		root := fixtureCopy("spawn/one-child", "fork/codeword")
		golden := filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile)
		b, _ := os.ReadFile(golden)
		Expect(os.WriteFile(golden, []byte(strings.Replace(string(b), "assistant: OK", "assistant: Okay", 1)), 0o644)).To(Succeed())
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL golden$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+ok$`))
		Expect(r.stdout).To(ContainSubstring("[diff -golden +replay]"))
		Expect(r.stdout).To(ContainSubstring("-    assistant: Okay\n+    assistant: OK\n"))
		Expect(r.stdout).To(ContainSubstring("update the golden with:\n  go tool agentsnap check --update " + filepath.Join(root, "fixtures/fork/codeword")))
		Expect(r.stdout).To(HaveSuffix("2 scenarios, 1 passed, 1 failed\n"))
	})
})
