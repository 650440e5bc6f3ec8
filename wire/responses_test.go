package wire_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3/option"
)

// recordResp records the fork scenario from its playbook with rt.
func recordResp(rt agentsnap.Runtime) string {
	GinkgoHelper()
	dir := newFixture("mixed/responses", forkScenario, forkPlaybook)
	_, err := recordWith(dir, rt)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

func loadFixture(dir string) *fixture.Fixture {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return fx
}

func replayWith(fx *fixture.Fixture, opts harness.Options) *harness.Outcome {
	GinkgoHelper()
	o, err := judge.Replay(context.Background(), fx, opts)
	Expect(err).NotTo(HaveOccurred())
	return o
}

var (
	whole     = func(a *respAgent) { a.Whole = true }
	items     = func(a *respAgent) { a.Items = true }
	itemsOnce = func(a *respAgent) { a.Items, a.Whole = true, true }
)

var _ = Describe("an agent on openai-go's Responses client, through the wire layer", func() {
	It("records the logs to the contract, in the vocabulary of every API: the same transcript as the Chat Completions agent's", func() {
		dir := recordResp(respRuntime(chained))
		fx := loadFixture(dir)
		Expect(fx.Logs).To(HaveLen(3))
		root, fork, spawn := fx.Logs[0], fx.Logs[1], fx.Logs[2]
		Expect(fork.Header.ParentCallID).To(Equal("call_f"))
		Expect(fork.Header.Mode).To(Equal(session.ModeFork))
		Expect(fork.Header.SeedLength).To(Equal(session.CompletedPrefix(root.Events[:fork.Header.SeedLength+1])), "the parent's turn 1, stamped at the fork")
		Expect(fork.Events[:fork.Header.SeedLength]).To(Equal(root.Events[:fork.Header.SeedLength]))
		Expect(journal.LastTurn(fork.Events)).To(Equal(2))
		Expect(spawn.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(spawn.Header.SeedLength).To(BeZero())
		for _, l := range fx.Logs {
			for _, e := range l.Events {
				if e.Type == session.TypeRequestHeader {
					Expect(string(e.Data)).To(ContainSubstring(`"api":"openai-responses"`))
				}
			}
		}
		chat := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		recordSDK(chat)
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(string(mustRead(filepath.Join(chat, fixture.GoldenFile)))))
		Expect(string(mustRead(filepath.Join(dir, "session.1.jsonl")))).NotTo(ContainSubstring("history/replace"), "the child's chain resolved to its parent's completed turn")
	})

	DescribeTable("records the same tree however the agent keeps its conversation, and replays it identically 20 times",
		func(change func(*respAgent)) {
			dir := recordResp(respRuntime(change))
			Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(string(mustRead(filepath.Join(recordResp(respRuntime(chained)), fixture.GoldenFile)))))
			fx := loadFixture(dir)
			for range 20 {
				o := replayWith(fx, harness.Options{Runtime: respRuntime(change)})
				Expect(o).To(harness.MatchRecording())
				Expect(judge.CompareGolden(o).Message).To(BeEmpty())
			}
		},
		Entry("chained by previous_response_id, streamed", chained),
		Entry("chained by previous_response_id, whole answers", whole),
		Entry("the conversation sent back as items, streamed", items),
		Entry("the conversation sent back as items, whole answers", itemsOnce),
	)

	DescribeTable("records the same logs when the children name no session and agentsnap infers them (wire.InferLineage), and replays them",
		func(change func(*respAgent)) {
			untagged := func(a *respAgent) { change(a); a.Untagged = true }
			dir := recordResp(respRuntime(untagged, wire.InferLineage()))
			tagged := recordResp(respRuntime(change))
			for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
				Expect(string(mustRead(filepath.Join(dir, name)))).To(Equal(string(mustRead(filepath.Join(tagged, name)))), name)
			}
			Expect(replayWith(loadFixture(dir), harness.Options{Runtime: respRuntime(untagged, wire.InferLineage())})).To(harness.MatchRecording())
		},
		Entry("chained", chained),
		Entry("items", items),
	)

	It("replays the children of one answer identically under 20 seeded schedules", func() {
		fx := loadFixture(recordResp(respRuntime(chained)))
		Expect(replayWith(fx, harness.Options{Runtime: respRuntime(chained), Schedules: 20})).To(harness.MatchRecording())
	})

	It("fails a replay that leaves recorded calls unmade (the consumption check), naming the session", func() {
		fx := loadFixture(recordResp(respRuntime(chained)))
		fx.Scenario.Prompts = fx.Scenario.Prompts[:1]
		o := replayWith(fx, harness.Options{Runtime: respRuntime(chained)})
		Expect(o.Passed()).To(BeFalse())
		Expect(o.Report()).To(ContainSubstring("recording not consumed"))
		Expect(o.Report()).To(ContainSubstring("root"))
	})

	It("goes red without the seed slice, naming the fork child", func() {
		fx := loadFixture(recordResp(respRuntime(chained)))
		broken := replayWith(fx, harness.Options{Runtime: respRuntime(chained), Deriver: func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}})
		Expect(broken.Passed()).To(BeFalse())
		Expect(broken.Report()).To(ContainSubstring("root/call_f"))
		Expect(replayWith(fx, harness.Options{Runtime: respRuntime(chained)})).To(harness.MatchRecording(), "the same scenario with the slice")
	})

	It("records a fork child that sends its parent's running turn too as sent, its seed the completed turns", func() {
		rt := respRuntime(func(a *respAgent) { a.Items, a.ForkAll = true, true })
		dir := recordResp(rt)
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(ContainSubstring("history replaced: the first 2 messages kept, then:"))
		fx := loadFixture(dir)
		Expect(replayWith(fx, harness.Options{Runtime: rt})).To(harness.MatchRecording())
	})
})

var _ = Describe("drift and goldens of a Responses agent", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("names a changed system prompt", func() {
		fx := loadFixture(recordResp(respRuntime(chained)))
		fx.Scenario.Agent = []byte(`{"system": "You are a changed SDK agent."}`)
		o := replayWith(fx, harness.Options{Runtime: respRuntime(chained)})
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(ContainSubstring("the system prompt changed"))
	})

	It("names a changed setting of the API, in its own name", func() {
		fx := loadFixture(recordResp(respRuntime(func(a *respAgent) { a.MaxOutputTokens = 100 })))
		o := replayWith(fx, harness.Options{Runtime: respRuntime(func(a *respAgent) { a.MaxOutputTokens = 200 })})
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the request settings changed: max_output_tokens 100 → 200"))
	})

	It("rewrites an edited golden from a replay that matches its recording (-update), and refuses one from a replay that drifts", func() {
		dir := recordResp(respRuntime(chained))
		path := filepath.Join(dir, fixture.GoldenFile)
		original := mustRead(path)
		Expect(os.WriteFile(path, []byte(strings.Replace(string(original), "assistant: MARMALADE, and release", "assistant: MARMITE, and release", 1)), 0o644)).To(Succeed())

		fx := loadFixture(dir)
		o := replayWith(fx, harness.Options{Runtime: respRuntime(chained)})
		Expect(o).To(harness.MatchRecording())
		Expect(judge.CompareGolden(o).Message).To(ContainSubstring("-    assistant: MARMITE, and release v2.4.1."))
		res := judge.UpdateGolden(o)
		Expect(res.Message).To(BeEmpty())
		Expect(res.Updated).To(BeTrue())
		Expect(mustRead(path)).To(Equal(original))

		fx.Scenario.Agent = []byte(`{"system": "You are a changed SDK agent."}`)
		res = judge.UpdateGolden(replayWith(fx, harness.Options{Runtime: respRuntime(chained)}))
		Expect(res.Updated).To(BeFalse())
		Expect(res.Message).To(ContainSubstring("the replay itself fails"))
		Expect(mustRead(path)).To(Equal(original))
	})
})

// respKitRuntime is the Responses agent as the kit wants a runtime: a
// failed turn is the recorded outcome it is, and the run goes on.
func respKitRuntime(change func(*respAgent)) agentsnap.Runtime {
	return wire.Runtime("responses-test-agent", func(ctx context.Context, env *wire.Env) error {
		a := newRespAgent(env.Scenario.Agent, option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient))
		change(a)
		root := a.root()
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if _, err := root.Send(ctx, prompt); err != nil {
				env.Logf("prompt %d: the agent says: %v", i+1, err)
			}
			return nil
		})
	})
}

var _ = Describe("the conformance kit against a Responses agent", func() {
	DescribeTable("finds no violation in the logs the wire writes: the digests are the log's conversation's",
		func(ctx SpecContext, change func(*respAgent)) {
			res, err := conformance.Check(ctx, conformance.Config{
				Skip:  []string{"model-retry"}, // the test agent never retries a failed call
				New:   func() agentsnap.Runtime { return respKitRuntime(change) },
				Agent: json.RawMessage(`{"system": "You are a test agent."}`),
				Tool:  conformance.ToolCall{Name: "lookup", Arguments: json.RawMessage(`{"key":"release"}`)},
				DelegateArgs: func(_, prompt string) json.RawMessage {
					b, _ := json.Marshal(map[string]string{"prompt": prompt})
					return b
				},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Err()).NotTo(HaveOccurred())
		},
		Entry("chained", chained),
		Entry("items", items),
		Entry("items, whole answers", itemsOnce),
	)
})
