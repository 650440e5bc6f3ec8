package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A changed tool is named by check's report and serve's verdict alike.
var _ = Describe("drift in one tool", func() {
	It("check names the tool: fork/codeword recorded when subagent_fork had another description", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		// The recorded digests of subagent_fork and of all the tools, as
		// another description would have made them.
		for _, name := range []string{fixture.RootLog, fixture.ChildLog(1)} {
			path := filepath.Join(dir, name)
			b, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			old := string(b)
			edited := strings.NewReplacer(`"30530fec110f"]`, `"0123456789ab"]`,
				`"toolsDigest":"74626194da11752f7d84cf5c9910989b92ba0af6b6bad9ca2614bf9f3ebabfb1"`, `"toolsDigest":"`+strings.Repeat("0", 64)+`"`).Replace(old)
			Expect(edited).To(ContainSubstring(`"toolDigests":["85c7bc26d812","0123456789ab"]`), "%s: the fixture's digests, as recorded", name)
			Expect(os.WriteFile(path, []byte(edited), 0o644)).To(Succeed())
		}
		r := cli(root, nil, "check")
		Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring(`request drift: root (root session), model call 1 (turn 1 step 1): tool "subagent_fork" changed (its description or parameters)`))
	})

	It("serve names the tool whose description the agent changed since the recording", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)

		s = startServe(nil, "serve", dir, "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		l := lookup
		l.Description = "Look a fact up by its key."
		a.Tools = []sdkagent.Tool{l}
		_ = a.Run(context.Background(), prompts) // what it gets back is the replay's business
		code, out, _ = s.stop()
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring(`request drift: root (root session), model call 1 (turn 1 step 1): tool "lookup" changed (its description or parameters)`))
	})
})
