package wire_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const claudeScenario = `{
  "description": "an agent on the Anthropic SDK learns a fact, then forks one child and spawns another at once; the spawned one looks up two facts, one of them missing",
  "prompts": ["The codeword is MARMALADE. Reply OK.", "Fork a child for the codeword and spawn one for the release, at once."],
  "agent": {"system": "You are an agent on the Anthropic SDK."}
}
`

const claudePlaybook = `{
  "sessions": {
    "root": [
      {"text": "OK"},
      {"reasoning": "One child needs turn 1, the other does not.", "toolCalls": [
        {"id": "toolu_f", "name": "subagent_fork", "arguments": {"prompt": "What is the codeword?"}},
        {"id": "toolu_s", "name": "subagent_spawn", "arguments": {"prompt": "Look up the release and the nightly."}}
      ]},
      {"text": "MARMALADE, and release v2.4.1."}
    ],
    "toolu_f": [{"reasoning": "It was said in turn 1.", "text": "MARMALADE"}],
    "toolu_s": [
      {"toolCalls": [
        {"id": "toolu_l", "name": "lookup", "arguments": {"key": "release"}},
        {"id": "toolu_n", "name": "lookup", "arguments": {"key": "nightly"}}
      ]},
      {"text": "v2.4.1; there is no nightly."}
    ]
  }
}
`

// claudeGolden is the transcript of the Anthropic scenario.
const claudeGolden = `== root ==
turn 1 (user)
  user: The codeword is MARMALADE. Reply OK.
  step 1
    assistant: OK
  ended completed
turn 2 (user)
  user: Fork a child for the codeword and spawn one for the release, at once.
  step 1
    thinking: One child needs turn 1, the other does not.
    call toolu_f subagent_fork {"prompt":"What is the codeword?"}
    call toolu_s subagent_spawn {"prompt":"Look up the release and the nightly."}
    result toolu_f: MARMALADE
    result toolu_s: v2.4.1; there is no nightly.
  step 2
    assistant: MARMALADE, and release v2.4.1.
  ended completed

== session 1: fork of root via toolu_f, depth 1 ==
(inherits 12 events from root: turn 1)
turn 2 (subagent)
  user: What is the codeword?
  step 1
    thinking: It was said in turn 1.
    assistant: MARMALADE
  ended completed

== session 2: spawn of root via toolu_s, depth 1 ==
turn 1 (subagent)
  user: Look up the release and the nightly.
  step 1
    call toolu_l lookup {"key":"release"}
    call toolu_n lookup {"key":"nightly"}
    result toolu_l: v2.4.1
    result toolu_n (error): no fact nightly
  step 2
    assistant: v2.4.1; there is no nightly.
  ended completed
`

// recordClaude records the Anthropic scenario from its playbook with rt
// into a new fixture folder.
func recordClaude(rt agentsnap.Runtime) string {
	GinkgoHelper()
	dir := newFixture("mixed/claude", claudeScenario, claudePlaybook)
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = rt
	_, err = recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// replayClaude replays the fixture in dir with opts.
func replayClaude(dir string, opts harness.Options) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, opts)
	Expect(err).NotTo(HaveOccurred())
	return o
}

// headers returns the request/header payloads of a log.
func headers(l *session.Log) []session.RequestHeaderData {
	GinkgoHelper()
	var out []session.RequestHeaderData
	for _, e := range l.Events {
		if e.Type == session.TypeRequestHeader {
			var h session.RequestHeaderData
			Expect(json.Unmarshal(e.Data, &h)).To(Succeed())
			out = append(out, h)
		}
	}
	return out
}

var _ = Describe("an agent on the Anthropic SDK, through the wire layer", func() {
	It("records logs from the wire to the contract: lineage, the fork seed, the API and its settings, every tool result of one message with its is_error", func() {
		dir := recordClaude(claudeRuntime)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		root, fork, spawn := fx.Logs[0], fx.Logs[1], fx.Logs[2]
		Expect(fork.Header).To(HaveField("ParentCallID", "toolu_f"))
		Expect(fork.Header.Mode).To(Equal(session.ModeFork))
		Expect(fork.Header.SeedLength).To(Equal(session.CompletedPrefix(root.Events[:fork.Header.SeedLength+1])), "the seed is the parent's turn 1, stamped at the fork")
		Expect(fork.Events[fork.Header.SeedLength-1].Type).To(Equal(session.TypeTurnEnd))
		Expect(journal.LastTurn(fork.Events)).To(Equal(2))
		Expect(spawn.Header).To(HaveField("ParentCallID", "toolu_s"))
		Expect(spawn.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(spawn.Header.SeedLength).To(BeZero())
		for _, l := range fx.Logs {
			for _, h := range headers(l) {
				Expect(h.API).To(Equal("anthropic-messages"))
				Expect(string(h.Settings)).To(Equal(`{"max_tokens":1024}`))
				Expect(h.Model).To(Equal(claudeModel))
			}
		}
		Expect(string(mustRead(filepath.Join(dir, "session.2.jsonl")))).To(ContainSubstring(
			`{"role":"tool","content":[{"type":"tool-result","toolCallId":"toolu_n","name":"lookup","content":[{"type":"text","text":"no fact nightly"}],"isError":true}]}`))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(claudeGolden))
		Expect(fx.Scenario.Recorded.Runtime).To(Equal("claude-test-agent"))
	})

	It("replays offline, identically, 20 times and under 20 schedules (children at once)", func() {
		dir := recordClaude(claudeRuntime)
		for range 20 {
			o := replayClaude(dir, harness.Options{Runtime: claudeRuntime})
			Expect(o).To(harness.MatchRecording())
			Expect(judge.CompareGolden(o).Message).To(BeEmpty())
		}
		o := replayClaude(dir, harness.Options{Runtime: claudeRuntime, Schedules: 20})
		Expect(o).To(harness.MatchRecording())
	})

	It("goes red without the seed slice, naming the fork child", func() {
		dir := recordClaude(claudeRuntime)
		broken := replayClaude(dir, harness.Options{Runtime: claudeRuntime, Deriver: func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}})
		Expect(broken.Passed()).To(BeFalse())
		Expect(broken.Report()).To(ContainSubstring("root/toolu_f"))
		Expect(replayClaude(dir, harness.Options{Runtime: claudeRuntime})).To(harness.MatchRecording(), "with the slice it passes")
	})

	It("names drift in the system prompt, and in a setting of the API with both values", func() {
		dir := recordClaude(claudeRuntime)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Agent = []byte(`{"system": "You are a changed agent."}`)
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: claudeRuntime})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("the system prompt changed"))

		o = replayClaude(dir, harness.Options{Runtime: claudeRuntimeWith(func(a *claudeAgent) { a.MaxTokens = 2048 })})
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the request settings changed: max_tokens 1024 → 2048"))

		o = replayClaude(dir, harness.Options{Runtime: claudeRuntimeWith(func(a *claudeAgent) { a.StopSequences = []string{"END"} })})
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("stop_sequences"))
	})

	It("rewrites an edited golden from a replay that matches its recording (what -update does)", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := recordClaude(claudeRuntime)
		path := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.WriteFile(path, []byte(strings.Replace(claudeGolden, "result toolu_n (error): no fact nightly", "result toolu_n: v2.5.0", 1)), 0o644)).To(Succeed())

		o := replayClaude(dir, harness.Options{Runtime: claudeRuntime})
		Expect(o).To(harness.MatchRecording())
		cmp := judge.CompareGolden(o)
		Expect(cmp.Message).To(ContainSubstring("-    result toolu_n: v2.5.0"))
		Expect(cmp.Message).To(ContainSubstring("+    result toolu_n (error): no fact nightly"))
		res := judge.UpdateGolden(o)
		Expect(res.Message).To(BeEmpty())
		Expect(res.Updated).To(BeTrue())
		Expect(string(mustRead(path))).To(Equal(claudeGolden))
	})

	It("serves and records whole answers (client.Messages.New) as it does streams", func() {
		whole := claudeRuntimeWith(func(a *claudeAgent) { a.Whole = true })
		dir := recordClaude(whole)
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(claudeGolden))
		Expect(replayClaude(dir, harness.Options{Runtime: whole})).To(harness.MatchRecording())
		Expect(replayClaude(dir, harness.Options{Runtime: claudeRuntime})).To(harness.MatchRecording(), "a stream replays a recording of whole answers")
	})

	It("fails the consumption check when the agent stops before the recording does", func() {
		dir := recordClaude(claudeRuntime)
		o := replayClaude(dir, harness.Options{Runtime: claudeRuntimeWith(func(a *claudeAgent) { a.Turns = 1 })})
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring("not consumed"))
	})

	It("records a fork child that sends its parent's running turn too as sent, its seed the completed turns", func() {
		forkAll := claudeRuntimeWith(func(a *claudeAgent) { a.ForkAll = true })
		dir := recordClaude(forkAll)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs[1].Header.SeedLength).To(Equal(12), "the completed turn, whatever the child sends")
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("  history replaced: the first 2 messages kept, then:"))
		Expect(replayClaude(dir, harness.Options{Runtime: forkAll})).To(harness.MatchRecording())
	})
})
