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

// A scenario without playbook.json records only from a live model; for an
// agent under serve that is serve's own --live, not agentsnap record,
// which records the reference agent.
var _ = Describe("serve --record of a scenario without a playbook", func() {
	It("names serve's live recording among the ways to record it", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		Expect(os.Remove(filepath.Join(dir, fixture.PlaybookFile))).To(Succeed())
		r := cli(root, nil, "serve", dir, "--record", "--addr", "127.0.0.1:0", "--runtime", "reference")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring("has no playbook.json"))
		Expect(r.stderr).To(ContainSubstring("agentsnap serve DIR --record --live --base-url URL --model M"))
	})
})
