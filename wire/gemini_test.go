package wire_test

import (
	"context"
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
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var genaiStreamed = genaiRuntime(func(*genaiAgent) {})

func recordGenai(dir string, rt agentsnap.Runtime) *recorder.Result {
	GinkgoHelper()
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = rt
	res, err := recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return res
}

func replayGenai(dir string, rt agentsnap.Runtime) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: rt})
	Expect(err).NotTo(HaveOccurred())
	return o
}

var _ = Describe("an agent on the Gemini SDK (genai), through the wire layer", func() {
	It("records logs from the wire to the contract: lineage, a fork seed stamped from its parent's completed turns, the api on every call, no settings for generationConfig: {}", func() {
		dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
		Expect(recordGenai(dir, genaiStreamed).Sessions).To(Equal(3))
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		root, fork, spawn := fx.Logs[0], fx.Logs[1], fx.Logs[2]
		Expect(fork.Header).To(HaveField("ParentCallID", "call_f"))
		Expect(fork.Header.Mode).To(Equal(session.ModeFork))
		Expect(fork.Header.SeedLength).To(Equal(session.CompletedPrefix(root.Events[:fork.Header.SeedLength+1])), "the seed is the parent's turn 1, stamped at the fork")
		Expect(fork.Events[fork.Header.SeedLength-1].Type).To(Equal(session.TypeTurnEnd))
		Expect(journal.LastTurn(fork.Events)).To(Equal(2))
		Expect(spawn.Header).To(HaveField("ParentCallID", "call_s"))
		Expect(spawn.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(spawn.Header.SeedLength).To(BeZero())
		for _, l := range fx.Logs {
			for _, e := range l.Events {
				if e.Type == session.TypeRequestHeader {
					Expect(string(e.Data)).To(HaveSuffix(`"api":"gemini"}`), "api, and no settings: the SDK's generationConfig: {} sets nothing")
				}
			}
		}
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(forkGolden))
	})

	DescribeTable("replays offline identically, 20 times, children at once",
		func(rt agentsnap.Runtime) {
			dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
			recordGenai(dir, rt)
			Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(forkGolden), "the same transcript, and no history replaced: the agent sent back what it was given")
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for range 20 {
				o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: rt})
				Expect(err).NotTo(HaveOccurred())
				Expect(o).To(harness.MatchRecording())
				Expect(judge.CompareGolden(o).Message).To(BeEmpty())
			}
		},
		Entry("streamed (Models.GenerateContentStream), a content kept per event", genaiStreamed),
		Entry("whole answers (Models.GenerateContent)", genaiRuntime(func(a *genaiAgent) { a.Whole = true })),
		Entry("the SDK's Chats, streamed", genaiRuntime(func(a *genaiAgent) { a.Chat = true })),
		Entry("tools declared with an OpenAPI schema", genaiRuntime(func(a *genaiAgent) { a.OpenAPI = true })),
		Entry("the client given wire.BaseURL itself (/v1/v1beta/models/…)", genaiRuntimeAt(func(env *wire.Env) string { return env.BaseURL }, func(*genaiAgent) {})),
	)

	It("replays the same under 30 seeded schedules of its concurrent children", func() {
		dir := newFixture("parallel/genai", forkScenario, forkPlaybook)
		recordGenai(dir, genaiStreamed)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: genaiStreamed, Schedules: 30})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})

	It("goes red without the seed slice, naming the fork child", func() {
		dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
		recordGenai(dir, genaiStreamed)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: genaiStreamed, Deriver: func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(broken.Passed()).To(BeFalse())
		Expect(broken.Report()).To(ContainSubstring("root/call_f"))
		Expect(replayGenai(fx.Dir, genaiStreamed)).To(harness.MatchRecording(), "and passes with it")
	})

	It("shows drift when the agent sends another system prompt", func() {
		dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
		recordGenai(dir, genaiStreamed)
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Agent = []byte(`{"system": "You are a changed SDK agent."}`)
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: genaiStreamed})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the system prompt changed (21 characters recorded, 28 now)"))
	})

	DescribeTable("names a changed setting of the Gemini API with both values",
		func(recorded, replayed func(*genaiAgent), want string) {
			dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
			recordGenai(dir, genaiRuntime(recorded))
			o := replayGenai(dir, genaiRuntime(replayed))
			Expect(o.Drift).NotTo(BeNil(), o.Report())
			Expect(o.Drift.String()).To(Equal("root (root session), model call 1 (turn 1 step 1): the request settings changed: " + want))
			Expect(replayGenai(dir, genaiRuntime(recorded))).To(harness.MatchRecording(), "the recorded settings replay clean")
		},
		Entry("generationConfig.temperature", func(a *genaiAgent) { a.Temperature = 0.25 }, func(a *genaiAgent) { a.Temperature = 0.75 },
			`generationConfig {"temperature":0.25} → {"temperature":0.75}`),
		Entry("a thinking budget added", func(*genaiAgent) {}, func(a *genaiAgent) { a.ThinkingBudget = 512 },
			`generationConfig added ({"thinkingConfig":{"thinkingBudget":512}})`),
	)

	It("rewrites an edited golden from a replay that matches its recording (-update)", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := newFixture("mixed/genai", forkScenario, forkPlaybook)
		recordGenai(dir, genaiStreamed)
		path := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.WriteFile(path, []byte(strings.Replace(forkGolden, "assistant: MARMALADE, and release", "assistant: PLUM, and release", 1)), 0o644)).To(Succeed())
		o := replayGenai(dir, genaiStreamed)
		Expect(o).To(harness.MatchRecording())
		cmp := judge.CompareGolden(o)
		Expect(cmp.Message).To(ContainSubstring("-    assistant: PLUM, and release v2.4.1."))
		Expect(cmp.Message).To(ContainSubstring("+    assistant: MARMALADE, and release v2.4.1."))
		res := judge.UpdateGolden(o)
		Expect(res.Message).To(BeEmpty())
		Expect(res.Updated).To(BeTrue())
		Expect(string(mustRead(path))).To(Equal(forkGolden))
		Expect(judge.CompareGolden(replayGenai(dir, genaiStreamed)).Message).To(BeEmpty())
	})
})
