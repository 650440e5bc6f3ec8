package vercelai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// parallel is the fixture with two children at once, over two turns.
var parallel = filepath.Join("fixtures", "parallel", "compare-releases")

// verdictOK is serve's verdict on a clean replay of dir.
func verdictOK(dir string) string {
	return `^` + regexp.QuoteMeta(harness.Name(dir)) + `: replay matches the recording \(\d+ sessions?, \d+ model calls?\)\n$`
}

// headers returns the request/header of every model call of log, in order.
func headers(log *session.Log) []session.RequestHeaderData {
	var out []session.RequestHeaderData
	for _, e := range log.Events {
		if e.Type == session.TypeRequestHeader {
			var h session.RequestHeaderData
			Expect(json.Unmarshal(e.Data, &h)).To(Succeed())
			out = append(out, h)
		}
	}
	return out
}

var _ = Describe("the Vercel AI SDK agent, replayed out of process by agentsnap serve", Label("node"), func() {
	var ctx context.Context

	BeforeEach(kit.Require)

	BeforeEach(func() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
		DeferCleanup(cancel)
	})

	DescribeTable("replays its fixture: every session, the researchers at once, exit 0 after SIGINT",
		func(dir string) {
			if nodetest.Exists(filepath.Join(dir, fixture.RootLog)) {
				GinkgoT().Setenv("AGENT_API", agentAPI(dir)) // the provider that spoke the fixture's API
			}
			if !strings.HasPrefix(harness.Name(dir), "apis/") {
				kit.RecordIfAsked(ctx, dir) // apis/ fixtures are recorded against aimock (apis_test.go)
			}
			code, verdict := kit.Run(ctx, nil, dir, dir)
			if code != 0 && harness.UpdateRequested() && nodetest.Exists(filepath.Join(dir, fixture.ProposalFile)) {
				kit.Accept(ctx, dir) // -update: the replay matched, only the golden differed
				code, verdict = kit.Run(ctx, nil, dir, dir)
			}
			Expect(code).To(Equal(0), verdict)
			Expect(verdict).To(MatchRegexp(verdictOK(dir)))
		},
		nodetest.Entries(),
	)

	DescribeTable("re-records its fixture from the playbook as committed, byte for byte: none hides what a recording writes today",
		func(dir string) { kit.ExpectRecordsAsCommitted(ctx, dir) },
		nodetest.Entries(),
	)

	It("records from the playbook through the wire layer: the fixture again, byte for byte; children named by their toolCallId", func() {
		GinkgoT().Setenv("CI", "") // serve --record refuses under CI
		dir := nodetest.CopyFixture(parallel, scenario.File, fixture.PlaybookFile)
		code, verdict := kit.Run(ctx, nil, dir, dir, "--record")
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(ContainSubstring("recorded " + dir + ": 3 sessions, 7 model calls"))
		for _, name := range []string{scenario.File, fixture.RootLog, "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			want, err := os.ReadFile(filepath.Join(parallel, name))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%s differs from the committed fixture", name)
		}

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3), "the root and one child per research call")
		for i, call := range []string{"call_research_24", "call_research_25"} {
			h := fx.Logs[i+1].Header
			Expect(h.ParentSession).To(Equal("root"))
			Expect(h.ParentCallID).To(Equal(call), "the child is named by the toolCallId its execute got")
			Expect(h.Mode).To(Equal(session.ModeSpawn))
			Expect(headers(fx.Logs[i+1])).To(HaveLen(2), "the child's own tool loop: release_notes, then its answer")
		}
		root := headers(fx.Logs[0])
		Expect(root).To(HaveLen(3), "turn 1: research, answer; turn 2: answer")
		Expect(root[1].Step).To(Equal(2), "the multi-step loop goes on in the same turn")
		// Turn 2 sends every step of turn 1 back (result.responseMessages;
		// the last step's response.messages would drop the tool calls, and
		// the log would show a history/replace).
		for _, e := range fx.Logs[0].Events {
			Expect(e.Type).NotTo(Equal(session.TypeHistoryReplace), "turn 2 sends the conversation as the log has it")
		}
	})

	It("exits 1 and names the drift when the agent sends another instruction, with the command that re-records", func() {
		// The agent gets a changed scenario; serve replays the recording.
		agentDir := nodetest.CopyFixture(parallel, scenario.File)
		var sc map[string]any
		b, err := os.ReadFile(filepath.Join(agentDir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(b, &sc)).To(Succeed())
		sc["agent"] = map[string]any{"researcher": "You research one release and answer in one short sentence."}
		b, err = json.Marshal(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(agentDir, scenario.File), b, 0o644)).To(Succeed())

		code, verdict := kit.Run(ctx, nil, parallel, agentDir)
		Expect(code).To(Equal(1), verdict)
		Expect(verdict).To(ContainSubstring("parallel/compare-releases: the replay does not match the recording"))
		Expect(verdict).To(MatchRegexp(`request drift: session [12] \(spawn of root via call_research_2[45]\), model call 1 \(turn 1 step 1\): the system prompt changed`))
		Expect(verdict).To(ContainSubstring("go tool agentsnap serve " + parallel + " --record --runtime " + runtimeName))
	})

	It("updates a golden the way -update does: the replay proposes the transcript, review --accept takes it", func() {
		dir := nodetest.CopyFixture(parallel)
		golden := filepath.Join(dir, fixture.GoldenFile)
		want, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		stale := bytes.Replace(want, []byte("v2.5 drops the legacy v1 API."), []byte("v2.5 drops nothing."), 1)
		Expect(stale).NotTo(Equal(want))
		Expect(os.WriteFile(golden, stale, 0o644)).To(Succeed())
		// Proposals are for developers: CI writes none.
		dev := nodetest.Environ([]string{"CI", "AGENTSNAP_FORCE_UPDATE"})

		code, verdict := kit.Run(ctx, dev, dir, dir)
		Expect(code).To(Equal(1), verdict)
		Expect(verdict).To(ContainSubstring("the transcript differs from " + golden))
		Expect(verdict).To(ContainSubstring("-    assistant: v2.5 drops nothing.\n+    assistant: v2.5 drops the legacy v1 API."))
		proposal, err := os.ReadFile(filepath.Join(dir, fixture.ProposalFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(proposal)).To(Equal(string(want)), "the proposal is the replay's transcript")
		Expect(verdict).To(ContainSubstring("go tool agentsnap review " + dir))

		code, out := kit.CLI(ctx, dev, "review", "--accept", dir)
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("accepted parallel/compare-releases"))
		got, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)))
		Expect(nodetest.Exists(filepath.Join(dir, fixture.ProposalFile))).To(BeFalse())

		code, verdict = kit.Run(ctx, dev, dir, dir)
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(MatchRegexp(verdictOK(dir)))
	})
})
