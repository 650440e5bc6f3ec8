package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve of a fixture whose logs cannot be replayed", func() {
	It("stops at once, naming the log, with serve's own re-recording", func() {
		root, dir, log := tornFixture()

		r := cli(root, nil, "serve", dir, "--addr", "127.0.0.1:0", "--runtime", "reference")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring(log + ":38: the last line is incomplete"))
		Expect(r.stderr).To(HaveSuffix("; re-record it with: go tool agentsnap serve " + dir + " --record --runtime reference (and run the agent against the URL it prints)\n"))

		By("a log the replay cannot derive")
		whole, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "fork", "codeword", fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(log, whole, 0o644)).To(Succeed())
		replaceIn(filepath.Join(dir, fixture.RootLog), `"inputTokens":68`, `"inputTokens":-68`)
		r = cli(root, nil, "serve", dir, "--addr", "127.0.0.1:0", "--runtime", "reference")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring(`"usage.inputTokens" is -68`))
		Expect(r.stderr).To(HaveSuffix("; re-record it with: go tool agentsnap serve " + dir + " --record --runtime reference (and run the agent against the URL it prints)\n"))
	})
})
