package recorder_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
)

// The tree scenario, answered by the scripted model: a fact in turn 1, a
// spawned helper that looks the release up in turn 2, a fork that recalls
// the fact in turn 3. Eight model calls: the root's five, the helper's
// two, the fork's one.
var (
	treePrompts = []string{
		"The codeword is MARMALADE. Reply OK.",
		"Spawn a helper to look up the release.",
		"Fork a child to recall the codeword.",
	}
	treeAnswers = map[string]reply{
		"The codeword is MARMALADE. Reply OK.":                          {text: "OK"},
		"Spawn a helper to look up the release.":                        {call: "call_rel", name: "subagent_spawn", args: `{"description":"release","prompt":"Look up the release."}`},
		"Spawn a helper to look up the release now.":                    {call: "call_rel", name: "subagent_spawn", args: `{"description":"release","prompt":"Look up the release."}`},
		"Look up the release.":                                          {call: "call_l", name: "lookup", args: `{"key":"release"}`},
		"Fork a child to recall the codeword.":                          {call: "call_cw", name: "subagent_fork", args: `{"description":"recall","prompt":"What is the codeword?"}`},
		"Fork a child to recall the codeword, please.":                  {call: "call_cw", name: "subagent_fork", args: `{"description":"recall","prompt":"What is the codeword?"}`},
		"What is the codeword?":                                         {text: "MARMALADE", input: 300, output: 20},
		"Look up the owner first, then spawn a helper for the release.": {call: "call_o", name: "lookup", args: `{"key":"owner"}`},
		"Fork a new child to recall the codeword.":                      {call: "call_new", name: "subagent_fork", args: `{"description":"recall","prompt":"What is the codeword?"}`},
	}
)

// treeScenario writes the tree scenario into a new fixtures/custom/tree
// (a category without rules: a change may drop the spawned helper).
func treeScenario() string {
	dir := filepath.Join(GinkgoT().TempDir(), "fixtures", "custom", "tree")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	sc := &scenario.Scenario{
		Description: "A tree recorded live: a fact, a spawned helper, a fork.",
		Prompts:     treePrompts,
		Agent:       json.RawMessage(`{"system": "You are a careful assistant.", "tools": ["lookup", "subagent_spawn", "subagent_fork"]}`),
		MaxDepth:    2,
		Data:        scenario.Data{"release": "v2.4.1", "owner": "ops"},
	}
	Expect(sc.Save(dir)).To(Succeed())
	return dir
}

// recordScripted records dir from the scripted endpoint s, the golden replaced.
func recordScripted(ctx context.Context, dir string, s *scripted, mutate ...func(*recorder.Options)) (*recorder.Result, error) {
	return record(ctx, dir, s.driver(), append([]func(*recorder.Options){func(o *recorder.Options) {
		o.Live, o.Provider, o.Model, o.Endpoint, o.ReplaceGolden = true, "openai-compatible", "scripted-model", s.URL, true
	}}, mutate...)...)
}

func onlyChanged(o *recorder.Options) { o.OnlyChanged = true }

// editScenario changes the scenario.json of dir.
func editScenario(dir string, edit func(sc *scenario.Scenario)) {
	sc, err := scenario.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	edit(sc)
	Expect(sc.Save(dir)).To(Succeed())
}

func readFile(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// expectSeedIsPrefix expects the seed of fork to be the first turns of
// parent, up to its turns-th turn/end, byte for byte (times included),
// and returns its length.
func expectSeedIsPrefix(fork, parent *session.Log, turns int) int {
	GinkgoHelper()
	boundary, ends := -1, 0
	for i, e := range parent.Events {
		if e.Type == session.TypeTurnEnd {
			if ends++; ends == turns {
				boundary = i + 1
				break
			}
		}
	}
	Expect(fork.Header.SeedLength).To(Equal(boundary))
	for i := range boundary {
		Expect(string(session.AppendEvent(nil, &fork.Events[i]))).To(Equal(string(session.AppendEvent(nil, &parent.Events[i]))), "seed event %d", i)
	}
	return boundary
}

// recordedTree records the tree scenario live and returns its folder and
// the endpoint, its request count reset.
func recordedTree() (string, *scripted) {
	s := newScripted(treeAnswers)
	dir := treeScenario()
	_, err := recordScripted(context.Background(), dir, s)
	Expect(err).NotTo(HaveOccurred())
	Expect(s.requests()).To(HaveLen(8))
	Expect(filepath.Join(dir, fixture.ChildLog(2))).To(BeAnExistingFile())
	return dir, s
}

var _ = Describe("record --only-changed against a live endpoint", func() {
	It("sends only the calls from a late prompt's drift on, keeps every untouched log byte-identical, and replays green", func() {
		dir, s := recordedTree()
		before := tree(dir)
		editScenario(dir, func(sc *scenario.Scenario) { sc.Prompts[2] = "Fork a child to recall the codeword, please." })

		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{
			"user: Fork a child to recall the codeword, please.", // the root's 4th call, where it drifted
			"user: What is the codeword?",                        // the fork, created after that point
			"tool: MARMALADE",                                    // the root's 5th call
		}))
		// The helper of turn 2 replayed; the fork's live answer is the one
		// recorded, so its log keeps its bytes too.
		after := tree(dir)
		Expect(after["tree/"+fixture.ChildLog(1)]).To(Equal(before["tree/"+fixture.ChildLog(1)]))
		Expect(after["tree/"+fixture.ChildLog(2)]).To(Equal(before["tree/"+fixture.ChildLog(2)]))
		Expect(after["tree/"+fixture.RootLog]).NotTo(Equal(before["tree/"+fixture.RootLog]))
		Expect(after["tree/"+fixture.RootLog]).To(ContainSubstring("recall the codeword, please."))

		u := res.Reuse
		Expect(u).NotTo(BeNil())
		Expect(u.Replayed).To(Equal(5))
		Expect(u.Live).To(Equal(3))
		Expect(u.Tokens.Input).To(Equal(100 + 300 + 100))
		Expect(u.Tokens.Output).To(Equal(10 + 20 + 10))
		Expect(u.Kept).To(Equal([]string{"root/call_rel"}), "root/call_cw went to the model: Changed says it")
		Expect(u.Changed).To(HaveLen(2))
		Expect(u.Changed[0]).To(MatchFields(IgnoreExtras, Fields{"Session": Equal("root"), "From": Equal(4), "Turn": Equal(3), "Step": Equal(1), "Live": Equal(2), "Replayed": Equal(3), "Kept": BeFalse()}))
		Expect(u.Changed[0].Why).To(ContainSubstring("the conversation sent differs from message 7 on"))
		Expect(u.Changed[1]).To(MatchFields(IgnoreExtras, Fields{"Session": Equal("root/call_cw"), "From": Equal(1), "Live": Equal(1), "Kept": BeTrue()}))
		Expect(u.Changed[1].Why).To(Equal("created after its parent went to the model"))
		Expect(strings.Join(u.Lines(), "\n")).To(ContainSubstring("root: re-recorded from model call 4 (turn 3 step 1), 2 calls sent to the model"))

		s.Close() // offline from here on
		replayPasses(dir)
	})

	It("sends nothing and writes nothing when nothing changed", func() {
		dir, s := recordedTree()
		before := tree(dir)
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(BeEmpty())
		Expect(res.Unchanged).To(BeTrue())
		Expect(res.Reuse.Replayed).To(Equal(8))
		Expect(res.Reuse.Changed).To(BeEmpty())
		Expect(tree(dir)).To(Equal(before))
	})

	It("stamps the seed of a fork created after the drift point from the new parent log", func() {
		dir, s := recordedTree()
		oldFork, err := session.ReadFile(filepath.Join(dir, fixture.ChildLog(2)))
		Expect(err).NotTo(HaveOccurred())
		// Turn 2 now looks the owner up itself and spawns no helper.
		editScenario(dir, func(sc *scenario.Scenario) {
			sc.Prompts[1] = "Look up the owner first, then spawn a helper for the release."
		})
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{
			"user: Look up the owner first, then spawn a helper for the release.", "tool: ops",
			"user: Fork a child to recall the codeword.", "user: What is the codeword?", "tool: MARMALADE",
		}))
		Expect(res.Reuse.Gone).To(Equal([]string{"root/call_rel"}))

		root, err := session.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		fork, err := session.ReadFile(filepath.Join(dir, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(fork.Header.Mode).To(Equal(session.ModeFork))
		boundary := expectSeedIsPrefix(fork, root, 2)
		Expect(fork.Seed()).NotTo(Equal(oldFork.Seed()), "the seed is the new parent log's, not the old one's")
		Expect(boundary).To(BeNumerically(">", 0))
		Expect(string(session.Encode(&fork.Header, fork.Seed()))).To(ContainSubstring("Look up the owner first"))

		s.Close()
		replayPasses(dir)
	})

	It("gives a fork the recording never had its parent's prefix as the parent's log now has it, times included", func() {
		dir, s := recordedTree()
		editScenario(dir, func(sc *scenario.Scenario) { sc.Prompts[2] = "Fork a new child to recall the codeword." })
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Reuse.Gone).To(Equal([]string{"root/call_cw"}))
		root, err := session.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		fork, err := session.ReadFile(filepath.Join(dir, fixture.ChildLog(2)))
		Expect(err).NotTo(HaveOccurred())
		Expect(fork.Header.ParentCallID).To(Equal("call_new"))
		// The root's first two turns replayed and keep their recorded
		// times; the new fork inherits them as they are.
		expectSeedIsPrefix(fork, root, 2)
		s.Close()
		replayPasses(dir)
	})

	It("serves a session that still replays its recorded tool output, so a tool whose answer changed sends nothing and writes nothing", func() {
		dir, s := recordedTree()
		// lookup is a recorded tool: its answer changes, as a clock's would.
		editScenario(dir, func(sc *scenario.Scenario) { sc.Data["release"] = "v2.5.0" })
		before := tree(dir)
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(BeEmpty())
		Expect(res.Unchanged).To(BeTrue())
		Expect(res.Reuse.Replayed).To(Equal(8))
		Expect(res.Reuse.Changed).To(BeEmpty())
		Expect(tree(dir)).To(Equal(before))
		Expect(readFile(dir, fixture.ChildLog(1))).To(ContainSubstring(`"text":"v2.4.1"`))
		s.Close()
		replayPasses(dir)
	})

	It("runs the tool in a session re-recorded with --session, records its new output, and re-records the parent from the call that receives it", func() {
		dir, s := recordedTree()
		editScenario(dir, func(sc *scenario.Scenario) { sc.Data["release"] = "v2.5.0" })
		res, err := recordScripted(context.Background(), dir, s, func(o *recorder.Options) { o.Session = "root/call_rel" })
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{
			"user: Look up the release.", "tool: v2.5.0", // the helper, its lookup run again
			"tool: Result: v2.5.0", // the root's 3rd call, receiving the helper's answer
			"user: Fork a child to recall the codeword.", "user: What is the codeword?", "tool: MARMALADE",
		}))
		Expect(res.Reuse.Changed[0]).To(MatchFields(IgnoreExtras, Fields{"Session": Equal("root"), "From": Equal(3), "Turn": Equal(2), "Step": Equal(2)}))
		Expect(res.Reuse.Changed[1]).To(MatchFields(IgnoreExtras, Fields{"Session": Equal("root/call_rel"), "From": Equal(1), "Replayed": Equal(0), "Live": Equal(2)}))
		Expect(readFile(dir, fixture.ChildLog(1))).To(ContainSubstring(`"text":"v2.5.0"`))
		s.Close()
		replayPasses(dir)
	})

	It("runs the tool in a child created after its parent went to the model, and records its new output", func() {
		dir, s := recordedTree()
		editScenario(dir, func(sc *scenario.Scenario) {
			sc.Data["release"] = "v2.5.0"
			sc.Prompts[1] = "Spawn a helper to look up the release now."
		})
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{
			"user: Spawn a helper to look up the release now.", "user: Look up the release.", "tool: v2.5.0", "tool: Result: v2.5.0",
			"user: Fork a child to recall the codeword.", "user: What is the codeword?", "tool: MARMALADE",
		}))
		Expect(res.Reuse.Changed[1]).To(MatchFields(IgnoreExtras, Fields{"Session": Equal("root/call_rel"), "From": Equal(1), "Why": Equal("created after its parent went to the model")}))
		Expect(readFile(dir, fixture.ChildLog(1))).To(ContainSubstring(`"text":"v2.5.0"`))
		s.Close()
		replayPasses(dir)
	})

	It("re-records one session's subtree on purpose with --session, and nothing else when its answers come out the same", func() {
		dir, s := recordedTree()
		before := tree(dir)
		res, err := recordScripted(context.Background(), dir, s, func(o *recorder.Options) { o.Session = "root/call_rel" })
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{"user: Look up the release.", "tool: v2.4.1"}))
		Expect(res.Unchanged).To(BeTrue())
		Expect(tree(dir)).To(Equal(before))
		Expect(res.Reuse.Changed).To(ConsistOf(MatchFields(IgnoreExtras, Fields{"Session": Equal("root/call_rel"), "Live": Equal(2), "Kept": BeTrue(), "Why": ContainSubstring("--session")})))
	})

	It("re-records with --session a child whose model was upgraded, and the parent from its new result on", func() {
		dir, s := recordedTree()
		s.set(func(s *scripted) {
			s.answers = map[string]reply{}
			for k, v := range treeAnswers {
				s.answers[k] = v
			}
			s.answers["Look up the release."] = reply{text: "v2.4.1, from memory"}
		})
		_, err := recordScripted(context.Background(), dir, s, func(o *recorder.Options) { o.Session = "root/call_rel" })
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{
			"user: Look up the release.", "tool: v2.4.1, from memory",
			"user: Fork a child to recall the codeword.", "user: What is the codeword?", "tool: MARMALADE",
		}))
		s.Close()
		replayPasses(dir)
	})

	It("refuses a --session no recorded session has, naming the ones there are", func() {
		dir, s := recordedTree()
		before := tree(dir)
		_, err := recordScripted(context.Background(), dir, s, func(o *recorder.Options) { o.Session = "root/call_nope" })
		Expect(err).To(MatchError(ContainSubstring("--session root/call_nope names no recorded session; the recording has root, root/call_rel, root/call_cw")))
		Expect(s.requests()).To(BeEmpty())
		Expect(tree(dir)).To(Equal(before))
	})

	It("records a scenario never recorded whole", func() {
		s := newScripted(treeAnswers)
		dir := treeScenario()
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(HaveLen(8))
		Expect(res.Reuse.Replayed).To(Equal(0))
		Expect(res.Reuse.Changed).To(HaveLen(3))
		Expect(res.Reuse.Changed).To(HaveEach(HaveField("New", BeTrue())))
		replayPasses(dir)
	})
})

var _ = Describe("record --only-changed, all or nothing", func() {
	var dir string
	var s *scripted
	var before map[string]string
	BeforeEach(func() {
		dir, s = recordedTree()
		editScenario(dir, func(sc *scenario.Scenario) { sc.Prompts[2] = "Fork a child to recall the codeword, please." })
		before = tree(dir)
	})

	It("leaves the fixture byte-identical when a live call fails, and records the next time", func() {
		s.set(func(s *scripted) { s.fail = true })
		_, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).To(MatchError(recorder.ErrLiveFailure))
		Expect(tree(dir)).To(Equal(before))
		s.set(func(s *scripted) { s.fail = false })
		s.requests()
		_, err = recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(HaveLen(3))
	})

	It("leaves the fixture byte-identical when cancelled in a live call", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := record(ctx, dir, &cancelling{inner: s.driver(), cancel: cancel, n: 1}, func(o *recorder.Options) {
			o.Live, o.Provider, o.Model, o.OnlyChanged = true, "openai-compatible", "scripted-model", true
		})
		Expect(err).To(MatchError(context.Canceled))
		Expect(tree(dir)).To(Equal(before))
	})

	It("refuses, writing nothing, when a live call after the drift echoes the key", Label("secrets"), func() {
		const key = "sk-scripted-0123456789abcdef" // the driver's, so it knows it sends it
		s.set(func(s *scripted) { s.leak = " " + key })
		_, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).NotTo(ContainSubstring(key))
		Expect(tree(dir)).To(Equal(before))
	})
})

// playbookRecorded scaffolds and records a fixture from its playbook as
// the CLI does, the playbook's digest recorded.
func playbookRecorded(name string, mutate ...func(*recorder.Options)) (string, *recorder.Result) {
	dir := scaffold(name)
	return dir, playbookRecord(dir, mutate...)
}

// playbookRecord records dir from its playbook as the CLI does.
func playbookRecord(dir string, mutate ...func(*recorder.Options)) *recorder.Result {
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime, opts.By, opts.ReplaceGolden = agent.Reference, "agentsnap test", true
	for _, m := range mutate {
		m(&opts)
	}
	res, err := recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return res
}

var _ = Describe("record --only-changed from the playbook", func() {
	It("answers each session's drifting call with the playbook's turn for it, as a whole recording would", func() {
		dir, _ := playbookRecorded("fork/pb")
		twin, _ := playbookRecorded("fork/twin")
		for _, d := range []string{dir, twin} {
			editScenario(d, func(sc *scenario.Scenario) { sc.Prompts[1] += " Be brief." })
		}
		res := playbookRecord(dir, onlyChanged)
		Expect(res.Reuse.Replayed).To(Equal(1))
		Expect(res.Reuse.Changed[0]).To(MatchFields(IgnoreExtras, Fields{"Session": Equal("root"), "From": Equal(2), "Live": Equal(2)}))
		playbookRecord(twin)
		for _, name := range []string{fixture.RootLog, fixture.ChildLog(1)} {
			Expect(readFile(dir, name)).To(Equal(readFile(twin, name)), name)
		}
		replayPasses(dir)
	})

	It("refuses when playbook.json changed since the recording, writing nothing", func() {
		dir, _ := playbookRecorded("fork/pb")
		path := filepath.Join(dir, fixture.PlaybookFile)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, []byte(strings.Replace(string(b), `{"text": "OK"}`, `{"text": "OK!"}`, 1)), 0o644)).To(Succeed())
		before := tree(dir)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime, opts.OnlyChanged = agent.Reference, true
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError(ContainSubstring("playbook.json changed since the recording")))
		Expect(tree(dir)).To(Equal(before))
	})
})
