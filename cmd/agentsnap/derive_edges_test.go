package main

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap derive, what it lists and names", func() {
	It("lists the first five logs of a folder of six and counts the one more", func() {
		dir := GinkgoT().TempDir()
		Expect(os.Mkdir(filepath.Join(dir, "fx"), 0o755)).To(Succeed())
		for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", "session.3.jsonl", "session.4.jsonl", "session.5.jsonl"} {
			Expect(os.WriteFile(filepath.Join(dir, "fx", name), []byte(deriveFork), 0o644)).To(Succeed())
		}
		code, stdout, stderr := deriveCLI(dir, "fx")
		Expect(code).To(Equal(exitBadData))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(Equal("agentsnap derive: fx is a folder; derive takes one session log file, e.g. fx/session.jsonl (it holds session.jsonl, session.1.jsonl, session.2.jsonl, session.3.jsonl, session.4.jsonl and 1 more)\n"))
	})

	It("names the attempt of a dropped call that has one, the first included", func() {
		cut := strings.Replace(deriveCut, `"data":{"turn":2,"step":3,"chunk"`, `"data":{"turn":2,"step":3,"attempt":1,"chunk"`, 1)
		Expect(cut).NotTo(Equal(deriveCut))
		dir := deriveDir(map[string]string{"session.jsonl": cut})
		code, stdout, stderr := deriveCLI(dir, "session.jsonl", "--drop-incomplete")
		Expect(code).To(Equal(exitOK))
		Expect(derivedTexts(stdout)).To(Equal([]string{"ok|stop"}))
		Expect(stderr).To(Equal("agentsnap derive: session.jsonl: dropped the incomplete model call at turn 2 step 3 attempt 1 (1 chunk, no finish)\n"))
	})
})
