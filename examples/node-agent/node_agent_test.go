package nodeagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// kit is the agent's specs' machinery, shared with the other Node agents.
var kit = &nodetest.Kit{Runtime: "node-agent", Folder: "examples/node-agent", Packages: []string{"openai"}}

var _ = Describe("the Node agent, replayed out of process by agentsnap serve", Label("node"), func() {
	BeforeEach(kit.Require)

	DescribeTable("replays its fixture: every session, children at once, exit 0 after SIGINT",
		func(dir string) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			kit.RecordIfAsked(ctx, dir)
			s := kit.Serve(ctx, nil, dir, "--runtime", kit.Runtime)
			Expect(s.URL).To(MatchRegexp(`^http://127\.0\.0\.1:\d+/v1$`))
			out, err := nodetest.Agent(ctx, s.URL, dir)
			Expect(err).NotTo(HaveOccurred(), "node agent.mjs:\n%s", out)
			code, verdict := s.Stop()
			Expect(code).To(Equal(0), verdict)
			Expect(verdict).To(MatchRegexp(`^%s: replay matches the recording \(\d+ sessions?, \d+ model calls?\)\n$`, regexp.QuoteMeta(harness.Name(dir))))
		},
		nodetest.Entries(),
	)

	DescribeTable("re-records its fixture from the playbook as committed, byte for byte: none hides what a recording writes today",
		func(dir string) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			kit.ExpectRecordsAsCommitted(ctx, dir)
		},
		nodetest.Entries(),
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

		s := kit.Serve(ctx, nil, dir, "--runtime", kit.Runtime)
		_, _ = nodetest.Agent(ctx, s.URL, agentDir) // what the agent makes of it is the replay's business
		code, verdict := s.Stop()
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

		s := kit.Serve(ctx, nil, dir, "--runtime", kit.Runtime)
		out, err := nodetest.Agent(ctx, s.URL, agentDir)
		Expect(err).NotTo(HaveOccurred(), "node agent.mjs:\n%s", out)
		Expect(out).To(Equal("OK\n"))
		code, verdict := s.Stop()
		Expect(code).To(Equal(1), verdict)
		Expect(verdict).To(ContainSubstring("mixed/delegation: the replay does not match the recording"))
		Expect(verdict).To(MatchRegexp(`replay driver:\n\s+fakellm: recording not consumed`))
		Expect(verdict).To(MatchRegexp(`session root/call_fork \(fork; session\.1\.jsonl\): never called`))
	})
})
