package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// oddName is a file or folder name holding a line break and a terminal
// escape, and oddShown its escaped form.
const (
	oddName  = "ro\not\x1b[31m"
	oddShown = `ro\not\x1b[31m`
)

// A warning is no failure, but it quotes names as an error does: a name
// holding a line break or a terminal escape is printed as its escapes,
// so it can neither split the warning's line nor drive the terminal.
var _ = Describe("a warning quoting a name that holds a line break and a terminal escape", func() {
	It("convert's torn-line warning shows a log of the folder given by its escapes", func() {
		dir := GinkgoT().TempDir()
		Expect(os.Mkdir(filepath.Join(dir, "tree"), 0o755)).To(Succeed())
		h := storetest.RootHeader("root")
		log := filepath.Join(dir, "tree", oddName+".jsonl")
		Expect(os.WriteFile(log, append(session.Encode(&h, nil), `{"type":"step/st`...), 0o644)).To(Succeed())
		r := cli(dir, nil, "convert", "tree", "tree.db")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("agentsnap convert: warning: " + filepath.Join(dir, "tree", oddShown+".jsonl") +
			":2: dropped a torn last line (16 bytes), what a crash in the middle of a write leaves\n"))
	})

	It("derive's dropped-call warning shows the log given by its escapes", func() {
		dir := deriveDir(map[string]string{oddName + ".jsonl": deriveCut})
		code, _, stderr := deriveCLI(dir, oddName+".jsonl", "--drop-incomplete")
		Expect(code).To(Equal(exitOK), stderr)
		Expect(stderr).To(Equal("agentsnap derive: " + oddShown + ".jsonl: dropped the incomplete model call at turn 2 step 3 (1 chunk, no finish)\n"))
	})

	It("review's lines of a settled proposal show its folder by its escapes", func() {
		GinkgoT().Setenv("CI", "")
		root := fixtureCopy("fork/" + oddName + "=fork/codeword")
		_, proposal, _ := propose(root, "fork/"+oddName, codewordJAM)
		r := cli(root, nil, "review", "--reject", "--format", "json")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("rejected fork/" + oddShown + ": removed " + filepath.Join(root, "fixtures", "fork", oddShown, filepath.Base(proposal)) + "\n"))
	})
})
