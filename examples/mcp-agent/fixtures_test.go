package mcpagent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// root is where mcpagent's fixtures live; go test runs in the package folder.
const root = "testdata/fixtures"

var opts = harness.Options{Runtime: runtime}

func fixtures() []TableEntry {
	dirs, err := harness.Discover(root)
	if err != nil {
		panic(err)
	}
	var out []TableEntry
	for _, dir := range dirs {
		out = append(out, Entry(harness.Name(dir), dir))
	}
	return out
}

// mcpFromWholeLog derives the model calls from a session's own events and
// its MCP answers from its whole log, the inherited prefix included: the
// seed-slice bug, for MCP.
func mcpFromWholeLog(l *session.Log) (*fakellm.Script, error) {
	s, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
	if err != nil {
		return nil, err
	}
	whole, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
	if err != nil {
		return nil, err
	}
	s.MCP = whole.MCP
	return s, nil
}

var _ = Describe("mcpagent's fixtures", func() {
	// AGENTSNAP_RECORD='.' re-records them, against the live clock server.
	DescribeTable("replay to their recording and golden with no MCP server running",
		func(dir string) {
			before := dials.Load()
			o := harness.Run(GinkgoTB(), dir, opts)
			Expect(o).To(harness.MatchRecording())
			Expect(o).To(harness.MatchGolden(GinkgoTB()))
			Expect(dials.Load()).To(Equal(before), "the replay opened no connection to the MCP server")
			Expect(o.Fixture.Scenario.Recorded.Runtime).To(Equal("mcp-agent"))
		},
		fixtures(),
	)

	It("hold the clock's answers in the log of the session that asked, and the transcript shows them", func() {
		fx, err := fixture.Load(filepath.Join(root, "fork", "what-time"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(2))
		count := func(events []session.Event) int {
			n := 0
			for _, e := range events {
				if e.Type == session.TypeMCPCall && strings.Contains(string(e.Data), `"method":"tools/call"`) {
					n++
				}
			}
			return n
		}
		Expect(count(fx.Logs[0].Events)).To(Equal(1), "the root asked the time once")
		Expect(count(fx.Logs[1].Seed())).To(Equal(1), "the fork child inherits the root's answer")
		Expect(count(fx.Logs[1].Own())).To(Equal(1), "and asked once itself")
		golden, err := os.ReadFile(fx.Golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(MatchRegexp(`mcp clock tools/call now \{"zone":"Europe/Lisbon"\}: \S+ in Europe/Lisbon \(check #2\)`))
	})

	It("fail when a fork child is served its parent's inherited answer, and pass with the seed slice", func() {
		fx, err := fixture.Load(filepath.Join(root, "fork", "what-time"))
		Expect(err).NotTo(HaveOccurred())
		broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: runtime, Deriver: mcpFromWholeLog})
		Expect(err).NotTo(HaveOccurred())
		Expect(broken).NotTo(harness.MatchRecording())
		Expect(broken.Differences).NotTo(BeEmpty())
		Expect(broken.Differences[0].Session).To(Equal("session 1"), broken.Report())
		Expect(broken.Differences[0].Replay).To(ContainSubstring("check #1"), "the root's answer, inherited")

		fixed, err := judge.Replay(context.Background(), fx, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(fixed).To(harness.MatchRecording())
	})
})
