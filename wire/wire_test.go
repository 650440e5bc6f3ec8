package wire_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWire(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "wire")
}

const forkScenario = `{
  "description": "an SDK agent learns a fact, then forks one child and spawns another at once",
  "prompts": ["The codeword is MARMALADE. Reply OK.", "Fork a child for the codeword and spawn one for the release, at once."],
  "agent": {"system": "You are an SDK agent."}
}
`

const forkPlaybook = `{
  "sessions": {
    "root": [
      {"text": "OK"},
      {"toolCalls": [
        {"id": "call_f", "name": "subagent_fork", "arguments": {"prompt": "What is the codeword?"}},
        {"id": "call_s", "name": "subagent_spawn", "arguments": {"prompt": "Look up the release."}}
      ]},
      {"text": "MARMALADE, and release v2.4.1."}
    ],
    "call_f": [{"reasoning": "It was said in turn 1.", "text": "MARMALADE"}],
    "call_s": [
      {"toolCalls": [{"id": "call_l", "name": "lookup", "arguments": {"key": "release"}}]},
      {"text": "v2.4.1"}
    ]
  }
}
`

// newFixture writes a scenario folder CATEGORY/NAME under a temporary root.
func newFixture(name, sc, pb string) string {
	dir := filepath.Join(GinkgoT().TempDir(), name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(sc), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(pb), 0o644)).To(Succeed())
	return dir
}

func recordSDK(dir string) *recorder.Result {
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = sdkRuntime
	res, err := recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return res
}

var _ = Describe("an agent on the OpenAI SDK, through the wire layer", func() {
	It("records logs from the wire to the contract: lineage, a fork seed stamped from its parent's completed turns, turns and steps", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		res := recordSDK(dir)
		Expect(res.Sessions).To(Equal(3))

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		root, fork, spawn := fx.Logs[0], fx.Logs[1], fx.Logs[2]
		Expect(fork.Header).To(HaveField("ParentCallID", "call_f"))
		Expect(fork.Header.Mode).To(Equal(session.ModeFork))
		Expect(fork.Header.SeedLength).To(Equal(session.CompletedPrefix(root.Events[:fork.Header.SeedLength+1])), "the seed is the parent's turn 1, stamped at the fork")
		Expect(fork.Events[fork.Header.SeedLength-1].Type).To(Equal(session.TypeTurnEnd))
		Expect(journal.LastTurn(fork.Events)).To(Equal(2), "the fork child's own turn continues after the inherited one")
		Expect(spawn.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(spawn.Header.SeedLength).To(BeZero())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal("sdk-test-agent"))

		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(forkGolden))
	})

	It("replays the SDK agent offline, identically, many times (children at once)", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		for range 20 {
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntime})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
			Expect(judge.CompareGolden(o).Message).To(BeEmpty())
		}
	})

	It("goes red without the seed slice, naming the fork child", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntime, Deriver: func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(broken.Passed()).To(BeFalse())
		Expect(broken.Report()).To(ContainSubstring("root/call_f"))
	})

	It("shows drift when the SDK agent sends another system prompt", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(dir)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Agent = []byte(`{"system": "You are a changed SDK agent."}`)
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: sdkRuntime})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.String()).To(ContainSubstring("the system prompt changed"))
	})
})

func mustRead(path string) []byte {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return b
}

var _ = Describe("the wire layer's checks", func() {
	It("records a fork child that sends its parent's running turn too as sent, its seed the completed turns", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		forkAll := sdkRuntimeWith(forkRunningTurn)
		opts.Runtime = forkAll
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		root, fork := fx.Logs[0], fx.Logs[1]
		turn1 := slices.IndexFunc(root.Events, func(e session.Event) bool { return e.Type == session.TypeTurnEnd }) + 1
		Expect(fork.Header.SeedLength).To(Equal(turn1), "the completed turn, whatever the child sends")
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring(`turn 2 (subagent)
  history replaced: the first 2 messages kept, then:
    user: Fork a child for the codeword and spawn one for the release, at once.
    call call_f subagent_fork {"prompt":"What is the codeword?"}
    call call_s subagent_spawn {"prompt":"Look up the release."}
  user: What is the codeword?
  step 1`))
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: forkAll})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
		broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: forkAll, Deriver: func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(broken.Passed()).To(BeFalse(), "without the seed slice the child replays its parent's answers")
		Expect(broken.Report()).To(ContainSubstring("root/call_f"))
	})

	It("serves and records whole answers (no stream) the same way as streams", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		whole := sdkRuntimeWith(wholeAnswers)
		opts.Runtime = whole
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		streamed := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(streamed)
		Expect(mustRead(filepath.Join(dir, fixture.GoldenFile))).To(Equal(mustRead(filepath.Join(streamed, fixture.GoldenFile))))

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: whole})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})

// forkGolden is the transcript of the fork scenario: what the agent on
// each SDK does.
const forkGolden = `== root ==
turn 1 (user)
  user: The codeword is MARMALADE. Reply OK.
  step 1
    assistant: OK
  ended completed
turn 2 (user)
  user: Fork a child for the codeword and spawn one for the release, at once.
  step 1
    call call_f subagent_fork {"prompt":"What is the codeword?"}
    call call_s subagent_spawn {"prompt":"Look up the release."}
    result call_f: MARMALADE
    result call_s: v2.4.1
  step 2
    assistant: MARMALADE, and release v2.4.1.
  ended completed

== session 1: fork of root via call_f, depth 1 ==
(inherits 12 events from root: turn 1)
turn 2 (subagent)
  user: What is the codeword?
  step 1
    thinking: It was said in turn 1.
    assistant: MARMALADE
  ended completed

== session 2: spawn of root via call_s, depth 1 ==
turn 1 (subagent)
  user: Look up the release.
  step 1
    call call_l lookup {"key":"release"}
    result call_l: v2.4.1
  step 2
    assistant: v2.4.1
  ended completed
`
