package openaiagentsjs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
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

// parallel is the fixture with two children at once and a handoff.
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

var _ = Describe("the OpenAI Agents SDK agent, replayed out of process by agentsnap serve", Label("node"), func() {
	var ctx context.Context

	BeforeEach(kit.Require)

	BeforeEach(func() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
		DeferCleanup(cancel)
	})

	DescribeTable("replays its fixture: every session, the researchers at once, exit 0 after SIGINT",
		func(dir string) {
			kit.RecordIfAsked(ctx, dir)
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

	It("records from the playbook through the wire layer: the fixture again, byte for byte; children named by their tool calls; the handoff in the same session", func() {
		GinkgoT().Setenv("CI", "") // serve --record refuses under CI
		dir := nodetest.CopyFixture(parallel, scenario.File, fixture.PlaybookFile)
		code, verdict := kit.Run(ctx, nil, dir, dir, "--record")
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(ContainSubstring("recorded " + dir + ": 3 sessions, 8 model calls"))
		for _, name := range []string{scenario.File, fixture.RootLog, "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			want, err := os.ReadFile(filepath.Join(parallel, name))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%s differs from the committed fixture", name)
		}

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3), "the root and one child per research call; the writer is no session of its own")
		for i, call := range []string{"call_research_24", "call_research_25"} {
			h := fx.Logs[i+1].Header
			Expect(h.ParentSession).To(Equal("root"))
			Expect(h.ParentCallID).To(Equal(call), "the child is named by the function call's call id, not the response id")
			Expect(h.Mode).To(Equal(session.ModeSpawn))
		}
		// The handoff: turn 1 step 3 is the writer — the same session, its
		// conversation goes on, under the writer's instructions and tools.
		root := headers(fx.Logs[0])
		Expect(root).To(HaveLen(4))
		Expect(root[0].ToolNames).To(Equal([]string{"research", "transfer_to_Writer"}))
		Expect(root[1].SystemDigest).To(Equal(root[0].SystemDigest))
		Expect(root[2].Turn).To(Equal(1))
		Expect(root[2].Step).To(Equal(3))
		Expect(root[2].SystemDigest).NotTo(Equal(root[0].SystemDigest), "the writer's instructions")
		Expect(root[2].ToolNames).To(BeEmpty(), "the writer has no tools")
		Expect(root[2].MessageCount).To(BeNumerically(">", root[1].MessageCount), "the writer gets the whole conversation")
		Expect(root[3].SystemDigest).To(Equal(root[0].SystemDigest), "turn 2 starts with the coordinator again")
	})

	It("records in the Responses API, the SDK's default, from the same playbook: turn 2 goes on by previous_response_id, and the transcript is the Chat Completions one", func() {
		GinkgoT().Setenv("CI", "") // serve --record refuses under CI
		responses := filepath.Join("fixtures", "responses", "compare-releases")
		dir := nodetest.CopyFixture(responses, scenario.File, fixture.PlaybookFile)
		code, verdict := kit.Run(ctx, nil, dir, dir, "--record")
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(ContainSubstring("recorded " + dir + ": 3 sessions, 8 model calls"))
		for _, name := range []string{scenario.File, fixture.RootLog, "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			want, err := os.ReadFile(filepath.Join(responses, name))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%s differs from the committed fixture", name)
		}
		chat, err := os.ReadFile(filepath.Join(parallel, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		got, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(chat)), "a run continued by its response id is the conversation the history makes")

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, l := range fx.Logs {
			for _, h := range headers(l) {
				Expect(h.API).To(Equal("openai-responses"))
			}
		}
		root := headers(fx.Logs[0])
		Expect(root).To(HaveLen(4))
		Expect(root[3].Turn).To(Equal(2))
		Expect(root[3].MessageCount).To(BeNumerically(">", 1), "turn 2 sent one message and previous_response_id: serve stands it for the whole conversation")
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

// withoutLineage writes, beside agent.mjs (so its packages resolve), the
// agent as a team writes it before adding agentsnap-lineage: no childTool,
// no lineageFetch. It returns the file's name; the spec removes it.
func withoutLineage() string {
	b, err := os.ReadFile("agent.mjs")
	Expect(err).NotTo(HaveOccurred())
	src := string(b)
	for old, new := range map[string]string{
		"childTool(researcher.asTool({ toolName: 'research', toolDescription: 'Ask a researcher about one release.' })),": "researcher.asTool({ toolName: 'research', toolDescription: 'Ask a researcher about one release.' }),",
		", fetch: lineageFetch() }": " }",
	} {
		Expect(src).To(ContainSubstring(old))
		src = strings.Replace(src, old, new, 1)
	}
	f, err := os.CreateTemp(".", "agent-without-lineage-*.mjs")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.Remove, f.Name())
	_, err = f.WriteString(src)
	Expect(err).NotTo(HaveOccurred())
	Expect(f.Close()).To(Succeed())
	return f.Name()
}

var _ = Describe("the agent without agentsnap-lineage", Label("node"), func() {
	BeforeEach(kit.Require)

	It("exits 0 while serve exits 1: the SDK turns the refused child calls into tool output, serve names the headers to send", func(ctx SpecContext) {
		script := withoutLineage()
		s := kit.Serve(ctx, nil, parallel, "--runtime", runtimeName)
		out, err := exec.CommandContext(ctx, "node", script, s.URL, parallel).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "the agent itself does not notice:\n%s", out)
		code, verdict := s.Stop()
		Expect(code).To(Equal(1), verdict)
		Expect(verdict).To(ContainSubstring("session root/call_research_24 (spawn; session.1.jsonl): never called"))
		Expect(verdict).To(ContainSubstring("wire: a request for session root, which waits for the results of its tool calls (call_research_24, call_research_25), carries none of them"))
		Expect(verdict).To(ContainSubstring("send the headers Agentsnap-Session, Agentsnap-Parent, Agentsnap-Call and Agentsnap-Mode"))
		Expect(verdict).To(ContainSubstring("result call_research_24: An error occurred while running the tool. Please try again."))
	}, SpecTimeout(2*time.Minute))

	It("records and replays with --lineage=infer: each researcher's prompt is its call's input", func(ctx SpecContext) {
		GinkgoT().Setenv("CI", "") // serve --record refuses under CI
		script := withoutLineage()
		dir := nodetest.CopyFixture(parallel, scenario.File, fixture.PlaybookFile)
		for _, args := range [][]string{{"--record", "--lineage=infer"}, nil} {
			s := kit.Serve(ctx, nil, append([]string{dir, "--runtime", runtimeName}, args...)...)
			out, err := exec.CommandContext(ctx, "node", script, s.URL, dir).CombinedOutput()
			code, verdict := s.Stop()
			Expect(err).NotTo(HaveOccurred(), "node %s:\n%s\nagentsnap serve:\n%s", script, out, verdict)
			Expect(code).To(Equal(0), verdict)
		}
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Lineage).To(Equal("infer"))
		for _, name := range []string{fixture.RootLog, "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			want, err := os.ReadFile(filepath.Join(parallel, name))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "inference finds the tree the headers name: %s", name)
		}
	}, SpecTimeout(2*time.Minute))
})
