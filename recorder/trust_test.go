package recorder_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/unprivileged"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// committed copies the committed fixture CATEGORY/NAME into a temporary
// fixtures tree and returns its folder.
func committed(name string) string {
	dir := filepath.Join(GinkgoT().TempDir(), "fixtures", name)
	Expect(os.MkdirAll(filepath.Dir(dir), 0o755)).To(Succeed())
	Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", name)))).To(Succeed())
	return dir
}

// recordPlaybook records dir from its playbook.json as the CLI does.
func recordPlaybook(dir string) (*recorder.Result, error) {
	opts, err := recorder.PlaybookOptions(dir, 0)
	if err != nil {
		return nil, err
	}
	opts.Runtime = agent.Reference
	opts.By = "agentsnap test"
	opts.ReplaceGolden = true // these specs look at the logs; proposals have their own
	return recorder.Record(context.Background(), dir, opts)
}

// editFile rewrites dir/name, replacing old (which must be there) by new.
func editFile(dir, name, old, new string) {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(b)).To(ContainSubstring(old))
	Expect(os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644)).To(Succeed())
}

var _ = Describe("a scenario whose maxDepth is too low for its playbook", func() {
	It("fails the recording and names the depth limit as the likely cause", func() {
		dir := committed("mixed/fork-spawns-grandchild")
		editFile(dir, scenario.File, `"maxDepth": 2`, `"maxDepth": 1`)
		before := tree(dir)
		_, err := recordPlaybook(dir)
		Expect(err).To(MatchError(recorder.ErrRecording))
		Expect(err).To(MatchError(playbook.ErrUnused))
		msg := err.Error()
		Expect(msg).To(ContainSubstring("sessions.call_weather used 0 of 1 turns"))
		Expect(msg).To(ContainSubstring("tool calls that returned errors, the likely cause:\n  session 1 turn 2 step 1: call call_weather (subagent_spawn) returned an error: delegation depth limit reached: this session is at depth 1 and subagents may go 1 deep"))
		Expect(msg).To(MatchRegexp(`; the fixture is unchanged\ntool calls that returned errors, the likely cause:\n(  .*\n)*  .*$`), "the list ends the message: no word of the refusal runs on after a tool's error")
		Expect(tree(dir)).To(Equal(before))
	})
})

var _ = Describe("a playbook.json that cannot be read", func() {
	It("a folder: names it and says it must be a readable file", func() {
		dir := committed("fork/codeword")
		path := filepath.Join(dir, fixture.PlaybookFile)
		Expect(os.Remove(path)).To(Succeed())
		Expect(os.Mkdir(path, 0o755)).To(Succeed())
		_, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).To(MatchError("recorder: read " + path + ": is a directory; playbook.json must be a file this user can read: restore it from version control, or fix its permissions"))
	})

	// CI runs as root, which reads any file: unprivileged.Do drops that.
	It("a file this user may not read: says to fix its permissions", func() {
		dir := committed("fork/codeword")
		path := filepath.Join(dir, fixture.PlaybookFile)
		Expect(os.Chmod(path, 0)).To(Succeed())
		DeferCleanup(os.Chmod, path, fs.FileMode(0o644))
		err := unprivileged.Do(func() error { _, err := recorder.PlaybookOptions(dir, 0); return err })
		Expect(err).To(MatchError("recorder: open " + path + ": permission denied; playbook.json must be a file this user can read: restore it from version control, or fix its permissions"))
	})
})

var _ = Describe("a playbook hang answer", func() {
	It("is refused at load without turnTimeout, naming the entry, and records and replays with it", func() {
		dir := committed("errors/hang-timeout")
		editFile(dir, scenario.File, `"turnTimeout": "300ms",`, ``)
		_, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).To(MatchError(ContainSubstring(filepath.Join(dir, fixture.PlaybookFile) + ": sessions.call_fetch[0] is a hang answer")))
		Expect(err).To(MatchError(ContainSubstring(`but scenario.json sets no turnTimeout, so the recording would wait forever; set "turnTimeout"`)))

		editFile(dir, scenario.File, `"maxDepth": 2,`, `"maxDepth": 2, "turnTimeout": "200ms",`)
		_, err = recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		o := replayPasses(dir)
		Expect(o.Transcript).To(ContainSubstring("aborted"))
	})
})

// toolErrorsScenario writes a scenario whose root calls a tool that does
// not exist and whose spawned child calls add with a bad argument, into
// root/fixtures/spawn/tool-errors, and returns its folder.
func toolErrorsScenario(root string) string {
	dir := filepath.Join(root, "fixtures", "spawn", "tool-errors")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{
  "description": "Tool calls that fail: a misspelled tool, bad arguments.",
  "prompts": ["Add one and two with a child, and look up the weather."],
  "agent": {"preset": "default", "system": "You are careful.", "tools": ["subagent_spawn", "add"]}
}
`), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{
  "sessions": {
    "root": [
      {"toolCalls": [
        {"id": "call_weather", "name": "weather", "arguments": {"city": "Lisbon"}},
        {"id": "call_sum", "name": "subagent_spawn", "arguments": {"description": "Sum", "prompt": "Add one and two."}}
      ]},
      {"text": "No weather tool; the child could not add."}
    ],
    "call_sum": [
      {"toolCalls": [{"id": "call_add", "name": "add", "arguments": {"a": "one", "b": 2}}]},
      {"text": "The add tool wants numbers."}
    ]
  }
}
`), 0o644)).To(Succeed())
	return dir
}

var _ = Describe("a recording whose tool calls returned errors", func() {
	It("succeeds and lists each: session, call, tool and message", func() {
		dir := toolErrorsScenario(GinkgoT().TempDir())
		res, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.ToolErrors).To(Equal([]string{
			`root turn 1 step 1: call call_weather (weather) returned an error: unknown tool "weather"; the tools are: subagent_spawn, add`,
			`session 1 turn 1 step 1: call call_add (add) returned an error: invalid arguments for add: "a" must be number, got string`,
		}))
		replayPasses(dir)
	})
})

var _ = Describe("re-recording", func() {
	It("an unchanged playbook changes no byte and says so, keeping recorded.at", func() {
		dir := committed("fork/codeword")
		res, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unchanged).To(BeFalse(), "the committed fixture has no playbook digest yet")
		// A recording stamped at another time by an earlier version: the
		// same logs must keep it.
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		editFile(dir, scenario.File, `"at": "`+sc.Recorded.At+`"`, `"at": "2026-01-02T03:04:05Z"`)
		first := tree(dir)
		folder, err := os.Stat(dir)
		Expect(err).NotTo(HaveOccurred())

		res, err = recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unchanged).To(BeTrue())
		Expect(tree(dir)).To(Equal(first))
		after, err := os.Stat(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.SameFile(folder, after)).To(BeTrue(), "nothing was written: a recording swaps in a new folder")
	})

	It("writes scenario.json when only its recording metadata changed", func() {
		dir := committed("fork/codeword")
		_, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		opts.By, opts.ReplaceGolden = "someone else", true
		res, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unchanged).To(BeFalse())
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded.By).To(Equal("someone else"))
	})

	It("is asked for by the replay once the playbook changed, and clears that", func() {
		dir := committed("fork/codeword")
		_, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(replayPasses(dir).Stale).To(BeEmpty())

		editFile(dir, fixture.PlaybookFile, `"text": "MARMALADE"`, `"text": "MARMALADE, as agreed."`)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Stale).To(ContainSubstring(filepath.Join(dir, fixture.PlaybookFile) + " changed since the recording"))
		Expect(o.Stale).To(ContainSubstring("re-record with: go tool agentsnap record " + dir))
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring("stale recording:"))

		_, err = recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		o = replayPasses(dir)
		Expect(o.Stale).To(BeEmpty())
		Expect(o.Transcript).To(ContainSubstring("MARMALADE, as agreed."))
	})

	It("keeps the author's layout of scenario.json: only the recorded member changes", func() {
		dir := committed("fork/codeword")
		head := `{
    "maxDepth": 2,
    "prompts": [
        "Remember this for later: the project codeword is MARMALADE. Reply with the single word OK.",
        "Use subagent_fork once to ask a forked child for the project codeword, then reply with the child's answer."
    ],
    "recorded": `
		tail := `,
    "agent": {"preset": "default", "system": "You are a careful assistant.", "tools": ["subagent_fork"]},
    "description":    "odd spacing, kept"
}
`
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(head+`{"model": "old", "at": "2020-01-01T00:00:00Z", "by": "someone"}`+tail), 0o644)).To(Succeed())
		_, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join(dir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(HavePrefix(head))
		Expect(string(b)).To(HaveSuffix(tail))
		var rec scenario.Recorded
		Expect(json.Unmarshal(b[len(head):len(b)-len(tail)], &rec)).To(Succeed())
		Expect(rec.Model).To(Equal("playbook"))
		Expect(rec.Playbook).To(HavePrefix("sha256:"))
	})

	It("removes a session log the agent no longer creates", func() {
		dir := committed("fork/codeword")
		Expect(filepath.Join(dir, fixture.ChildLog(1))).To(BeARegularFile())
		Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [{"text": "OK"}, {"text": "MARMALADE"}]}}`), 0o644)).To(Succeed())
		// The fork category asks for a fork child; this one has none now.
		moved := filepath.Join(filepath.Dir(filepath.Dir(dir)), "custom")
		Expect(os.Rename(filepath.Dir(dir), moved)).To(Succeed())
		dir = filepath.Join(moved, "codeword")

		res, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Sessions).To(Equal(1))
		Expect(filepath.Join(dir, fixture.ChildLog(1))).NotTo(BeAnExistingFile())
		Expect(filepath.Join(dir, fixture.RootLog)).To(BeARegularFile())
		replayPasses(dir)
	})
})

var _ = Describe("a re-recording whose transcript changed", func() {
	It("keeps the golden and writes the new transcript beside it, for review", func() {
		dir := committed("fork/codeword")
		golden := filepath.Join(dir, fixture.GoldenFile)
		before, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		editFile(dir, fixture.PlaybookFile, `"text": "MARMALADE"`, `"text": "MARMALADE, as agreed."`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		res, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Proposal).To(Equal(filepath.Join(dir, fixture.ProposalFile)))
		Expect(os.ReadFile(golden)).To(Equal(before))
		proposal, err := os.ReadFile(res.Proposal)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(proposal)).To(ContainSubstring("MARMALADE, as agreed."))

		By("a re-recording that matches the golden again drops the proposal")
		editFile(dir, fixture.PlaybookFile, `"text": "MARMALADE, as agreed."`, `"text": "MARMALADE"`)
		opts, err = recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		res, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Proposal).To(BeEmpty())
		Expect(filepath.Join(dir, fixture.ProposalFile)).NotTo(BeAnExistingFile())
		replayPasses(dir)
	})

	It("replaces the golden when asked to", func() {
		dir := committed("fork/codeword")
		editFile(dir, fixture.PlaybookFile, `"text": "MARMALADE"`, `"text": "MARMALADE, as agreed."`)
		res, err := recordPlaybook(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Proposal).To(BeEmpty())
		Expect(filepath.Join(dir, fixture.ProposalFile)).NotTo(BeAnExistingFile())
		Expect(replayPasses(dir).Transcript).To(ContainSubstring("MARMALADE, as agreed."))
	})
})

var _ = Describe("the secrets tripwire on a failed stream", func() {
	It("finds a key cut across the tool-call argument pieces of a stream that ended in an error", func() {
		const key = "sk-test-7f3a9c2e41b8d605"
		dir, before := recorded("fork/codeword")
		editPlaybook(dir, func(pb *playbook.Playbook) {
			pb.Sessions["root"][0] = &playbook.Turn{
				// {"key":" is 8 bytes, so the playbook streams the key in
				// three 8-byte pieces and no file holds it whole.
				ToolCalls: []playbook.ToolCall{{ID: "call_leak", Name: "lookup", Arguments: json.RawMessage(`{"key":"` + key + `"}`)}},
				Error:     &playbook.Error{Code: "SERVER", Message: "the stream broke"},
			}
		})
		before = tree(dir)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		opts.Secrets = map[string]string{"OPENAI_API_KEY": key}
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("the value of OPENAI_API_KEY was streamed across chunks in session.jsonl (turn 1 step 1)"))
		Expect(err.Error()).NotTo(ContainSubstring(key))
		Expect(tree(dir)).To(Equal(before))
	})
})
