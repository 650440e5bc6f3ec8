package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/internal/secret"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// inspect and derive print what a log holds; their output is pasted into
// issues and saved as sidecars. A log holding a key of the shell (an agent
// that printed it, a recording made without the variable set) prints it
// redacted.
var _ = Describe("inspect and derive of a log holding a key of the shell", Label("secrets"), func() {
	// JSON escapes neither character; the set's JSON forms are tested in
	// internal/secret.
	const key = "sk-inspect+key/0123456789abcdefXYZ"
	environ := map[string]string{"OPENAI_API_KEY": key}

	// leakyFolder copies fork/codeword with the child's answer holding the
	// key, and returns the folder.
	leakyFolder := func() string {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		path := filepath.Join(dir, "session.1.jsonl")
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		leaky := strings.ReplaceAll(string(b), "MARMALADE", "MARMALADE "+key)
		Expect(leaky).NotTo(Equal(string(b)))
		Expect(os.WriteFile(path, []byte(leaky), 0o644)).To(Succeed())
		return dir
	}
	expectNoKey := func(text string) {
		GinkgoHelper()
		traces, err := leaktest.Traces(key, nil, text)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the key shows in:\n%s", text)
	}

	It("inspect prints it as [REDACTED] in the turns' last texts", func() {
		dir := leakyFolder()
		r := cli(dir, environ, "inspect", dir)
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`"MARMALADE ` + secret.Redacted))
		expectNoKey(r.stdout + r.stderr)

		r = cli(dir, nil, "inspect", dir)
		Expect(r.stdout).To(ContainSubstring(`"MARMALADE `+key), "without the variable, nothing is a secret")
	})

	It("derive prints valid JSON with it as [REDACTED], and says so on stderr", func() {
		dir := leakyFolder()
		r := cli(dir, environ, "derive", "session.1.jsonl")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("agentsnap derive: session.1.jsonl: the script holds the value of OPENAI_API_KEY, a credential; it is printed as [REDACTED] (a recording should hold no key: keep it out of the scenario and of what the agent writes, then re-record)\n"))
		var script []map[string]any
		Expect(json.Unmarshal([]byte(r.stdout), &script)).To(Succeed())
		Expect(r.stdout).To(ContainSubstring("MARMALADE " + secret.Redacted))
		expectNoKey(r.stdout + r.stderr)

		r = cli(dir, nil, "derive", "session.1.jsonl")
		Expect(r.stderr).To(BeEmpty())
		Expect(r.stdout).To(ContainSubstring("MARMALADE " + key))
	})
})
