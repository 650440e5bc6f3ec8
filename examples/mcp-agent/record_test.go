package mcpagent_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("recording the agent against the live clock server", func() {
	It("writes the clock's answers into the logs, and the recording replays with the server absent", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "fork", "what-time")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		for _, name := range []string{"scenario.json", "playbook.json"} {
			b, err := os.ReadFile(filepath.Join(root, "fork", "what-time", name))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, name), b, 0o644)).To(Succeed())
		}
		ropts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		ropts.Runtime = runtime
		_, err = recorder.Record(context.Background(), dir, ropts)
		Expect(err).NotTo(HaveOccurred())

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		answers := func(l *session.Log) []string {
			var out []string
			for _, e := range l.Own() {
				var d session.MCPCallData
				if e.Type == session.TypeMCPCall && e.Decode(&d) == nil && d.Method == "tools/call" {
					out = append(out, string(d.Result))
				}
			}
			return out
		}
		Expect(answers(fx.Logs[0])).To(ConsistOf(ContainSubstring("in Europe/Lisbon (check #1)")), "the live server answered the root")
		Expect(answers(fx.Logs[1])).To(ConsistOf(ContainSubstring("in Europe/Lisbon (check #2)")), "and then the fork child")

		before := dials.Load()
		for range 3 {
			o, err := judge.Replay(context.Background(), fx, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		}
		Expect(dials.Load()).To(Equal(before), "no replay opened a connection to the MCP server")
	})
})
