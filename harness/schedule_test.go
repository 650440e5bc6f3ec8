package harness_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// completionOrder is a tiny runtime on package journal with the bug a
// schedule search exists for: the subagents of a step run concurrently,
// and their results are recorded in the order they COMPLETE. With serial
// it runs them one by one in call order instead, which is how its fixture
// is recorded, so the recording is the same on every run.
type completionOrder struct{ serial bool }

func (completionOrder) Name() string { return "completion-order" }

var spawnSpec = llm.ToolSpec{Name: "spawn", Description: "Hand a task to a helper.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"task":{"type":"string"}},"required":["task"]}`)}

func (rt completionOrder) Run(ctx context.Context, env *agentsnap.Env) error {
	root, err := journal.NewRoot(ctx, journal.Config{Store: env.Store, Clock: env.Clock, IDs: session.NewLineageIDs("root"), Cwd: env.Cwd, Preset: "completion-order"})
	if err != nil {
		return err
	}
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		_, err := rt.turn(ctx, env, root, journal.TriggerUser, prompt)
		return err
	})
}

// turn runs model calls until one calls no tool, and returns its text.
func (rt completionOrder) turn(ctx context.Context, env *agentsnap.Env, j *journal.Journal, trigger, prompt string) (string, error) {
	j.StartTurn(trigger, journal.UserText(prompt))
	var tools []llm.ToolSpec
	if j.Header().DelegationDepth == 0 {
		tools = []llm.ToolSpec{spawnSpec}
	}
	for {
		j.StartStep()
		req := &llm.Request{Model: env.Model, Tools: tools}
		call, err := j.BeginCall(ctx, env.Provider, req)
		if err != nil {
			return "", err
		}
		stream, err := env.Driver.Stream(ctx, req)
		if err != nil {
			return "", err
		}
		for c := range stream {
			call.Chunk(c)
		}
		msg, _ := call.End()
		calls := msg.ToolCalls()
		if len(calls) > 0 {
			if err := rt.delegate(ctx, env, j, calls); err != nil {
				return "", err
			}
		}
		if err := j.EndStep(ctx); err != nil {
			return "", err
		}
		if len(calls) == 0 {
			return msg.Text(), j.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted})
		}
	}
}

// delegate runs one helper per call and records each result as its
// helper finishes: the order-dependent part.
func (rt completionOrder) delegate(ctx context.Context, env *agentsnap.Env, j *journal.Journal, calls []session.Part) error {
	if err := j.ToolCalls(ctx, calls); err != nil {
		return err
	}
	type result struct {
		call session.Part
		text string
	}
	finished := make(chan result, len(calls))
	run := func(c session.Part, child *journal.Journal) result {
		var args struct{ Task string }
		_ = json.Unmarshal([]byte(c.Arguments), &args)
		text, err := rt.turn(ctx, env, child, journal.TriggerSubagent, args.Task)
		if err != nil {
			text = "error: " + err.Error()
		}
		return result{c, text}
	}
	for _, c := range calls {
		child, err := j.Child(ctx, c.ID, session.ModeSpawn)
		if err != nil {
			return err
		}
		if rt.serial {
			finished <- run(c, child)
			continue
		}
		go func() { finished <- run(c, child) }()
	}
	for range calls {
		r := <-finished
		j.ToolResult(r.call.ID, r.call.Name, r.text, false)
	}
	return nil
}

// recordCompletionOrder writes and records, with a serial run, a scenario
// whose root delegates to two helpers at once, and returns its folder.
func recordCompletionOrder() string {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "parallel", "completion-order")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(`{"description": "Two helpers at once.", "prompts": ["Ask two helpers at once, then sum up."]}`), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "playbook.json"), []byte(`{"sessions": {
  "root": [
    {"toolCalls": [
      {"id": "call_a", "name": "spawn", "arguments": {"task": "Say alpha."}},
      {"id": "call_b", "name": "spawn", "arguments": {"task": "Say beta."}}
    ]},
    {"text": "alpha and beta"}
  ],
  "call_a": [{"text": "alpha"}],
  "call_b": [{"text": "beta"}]
}}`), 0o644)).To(Succeed())
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = agent.Reference
	opts.Runtime, opts.By = completionOrder{serial: true}, "schedule_test"
	_, err = recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// flipMargin is how much longer one helper must wait than the other for a
// seed to decide which finishes first.
const flipMargin = 2500 * time.Microsecond

// helperMargin returns how much longer a seed plans helper call_a to wait
// than helper call_b.
func helperMargin(fx *fixture.Fixture) func(seed int64) time.Duration {
	GinkgoHelper()
	drv, err := fakellm.New(fx.Logs)
	Expect(err).NotTo(HaveOccurred())
	scripts := drv.Scripts()
	Expect(scripts).To(HaveLen(3))
	na, nb := len(scripts[1].Entries[0].Chunks), len(scripts[2].Entries[0].Chunks)
	return func(seed int64) time.Duration {
		s := fakellm.Seeded(seed)
		return s.Plan("root/call_a", 1, na).Total() - s.Plan("root/call_b", 1, nb).Total()
	}
}

// flipSeeds returns seeds s and s+1 whose plans hold helper call_b back
// before its first chunk by flipMargin more than call_a waits in all under
// s (so call_a finishes first, as recorded), and call_a under s+1 (so
// call_b finishes first). It asserts that such seeds exist. With one
// goroutine running at a time (GOMAXPROCS 1), a helper held back before
// its first chunk cannot overtake the other even when the machine stalls
// the process: the other is ahead by every step.
func flipSeeds(fx *fixture.Fixture) int64 {
	GinkgoHelper()
	drv, err := fakellm.New(fx.Logs)
	Expect(err).NotTo(HaveOccurred())
	scripts := drv.Scripts()
	na, nb := len(scripts[1].Entries[0].Chunks), len(scripts[2].Entries[0].Chunks)
	// held is how much longer the seed holds back lagging's first chunk
	// than other waits in all.
	held := func(seed int64, lagging string, n int, other string, m int) time.Duration {
		s := fakellm.Seeded(seed)
		return s.Plan(lagging, 1, n).Waits[0] - s.Plan(other, 1, m).Total()
	}
	for s := int64(1); s < 1000000; s++ {
		if held(s, "root/call_b", nb, "root/call_a", na) >= flipMargin && held(s+1, "root/call_a", na, "root/call_b", nb) >= flipMargin {
			return s
		}
	}
	Fail(fmt.Sprintf("no two seeds in a row hold each helper back by %v before its first chunk", flipMargin))
	return 0
}

// toolResults returns the root's tool results as "call id: text".
func toolResults(logs []*session.Log) []string {
	var out []string
	for _, e := range logs[0].Events {
		var d session.ToolResultData
		if e.Type == session.TypeToolResult && e.Decode(&d) == nil {
			p := d.Message.Content[0]
			out = append(out, p.ToolCallID+": "+p.Content[0].Text)
		}
	}
	return out
}

var _ = Describe("schedule search", func() {
	Describe("a runtime that records subagent results in completion order", Ordered, func() {
		var (
			dir  string
			fx   *fixture.Fixture
			base int64
			opts = harness.Options{Runtime: completionOrder{}}
		)
		BeforeAll(func() {
			// One goroutine at a time: see flipSeeds.
			DeferCleanup(runtime.GOMAXPROCS, runtime.GOMAXPROCS(1))
			dir = recordCompletionOrder()
			var err error
			fx, err = fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(toolResults(fx.Logs)).To(Equal([]string{"call_a: alpha", "call_b: beta"}), "recorded in call order by the serial run")
			base = flipSeeds(fx)
		})

		It("may pass plain replays by chance, but goes red under the schedule search, naming the two schedules and the first differing tool/result", func(ctx SpecContext) {
			passed := 0
			for range 5 {
				o, err := judge.Replay(ctx, fx, opts)
				Expect(err).NotTo(HaveOccurred())
				if o.Passed() {
					passed++
				}
			}
			GinkgoWriter.Printf("plain replays that passed by chance: %d of 5\n", passed)

			o := opts
			o.ScheduleSeed = base
			res, err := judge.SearchSchedules(ctx, fx, o, 50)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Passed()).To(BeFalse())
			Expect(res.Seeds).To(HaveLen(50))
			Expect(res.Diverged).To(Equal(1), res.Report())
			Expect(res.Unmatched).To(Equal(1), "schedule 0 finishes call_a first, as recorded")
			Expect(res.Reproduce()).To(Equal(base + 1))
			Expect(res.Difference.Session).To(Equal("root"))
			Expect(res.Difference.Type).To(Equal(session.TypeToolResult))
			Expect(res.Err()).To(MatchError(judge.ErrScheduleDependent))

			report := res.Report()
			GinkgoWriter.Println(report)
			Expect(report).To(ContainSubstring("parallel/completion-order: of 50 schedules (seeds %d..%d)", base, base+49))
			Expect(report).To(ContainSubstring("schedule 0 (seed %d) and schedule 1 (seed %d) wrote different logs", base, base+1))
			Expect(report).To(MatchRegexp(`root \(root session\): seq \d+ \(tool/result, turn 1 step 1, spawn call call_a\): data\.message\.content\[0\]\.content\[0\]\.text: schedule 0 "alpha", schedule 1 "beta"`))
			Expect(report).To(ContainSubstring("schedule 1 (seed %d) does not match the recording", base+1))
			Expect(report).To(ContainSubstring("go tool agentsnap check --schedule-seed=%d %s\n", base+1, dir), "the judge called outside a test gives the CLI's command")
		})

		It("replays the failing schedule the same way every time with -schedule-seed", func() {
			Expect(flag.Set("schedule-seed", strconv.FormatInt(base+1, 10))).To(Succeed())
			DeferCleanup(flag.Set, "schedule-seed", "0")
			var first []judge.Difference
			for range 2 {
				o := harness.Run(GinkgoTB(), dir, opts)
				Expect(o).NotTo(harness.MatchRecording())
				Expect(o.Notes).To(ContainElement(fmt.Sprintf("replayed under the schedule of seed %d", base+1)))
				Expect(toolResults(o.Replayed)).To(Equal([]string{"call_b: beta", "call_a: alpha"}))
				Expect(o.Differences).NotTo(BeEmpty())
				Expect(o.Differences[0].Type).To(Equal(session.TypeToolResult))
				if first == nil {
					first = o.Differences
				}
				Expect(o.Differences).To(Equal(first))
			}
		})

		It("searches only that schedule under AGENTSNAP_SCHEDULE_SEED", func(ctx SpecContext) {
			GinkgoT().Setenv(judge.ScheduleSeedVar, strconv.FormatInt(base+1, 10))
			o := opts
			o.Hints = inTest
			res, err := judge.SearchSchedules(ctx, fx, o, 50)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Seeds).To(Equal([]int64{base + 1}))
			Expect(res.Unmatched).To(Equal(0))
			Expect(res.Report()).To(HavePrefix("parallel/completion-order: under schedule 0 (seed %d) the replay does not match the recording\n", base+1))
			Expect(res.Report()).To(ContainSubstring("-schedule-seed=%d", base+1))
		})

		It("fails Run's outcome when Options.Schedules asks for a search, its replay being schedule 0", func() {
			o := opts
			o.Schedules, o.ScheduleSeed = 50, base
			out := harness.Run(GinkgoTB(), dir, o)
			Expect(out.Differences).To(BeEmpty(), "schedule 0 matches the recording")
			Expect(out).NotTo(harness.MatchRecording())
			Expect(out.RunErrors).To(ContainElement(MatchError(judge.ErrScheduleDependent)))
			Expect(out.Report()).To(ContainSubstring("schedule 0 (seed %d) and schedule 1 (seed %d) wrote different logs", base, base+1))
			Expect(out.Report()).To(ContainSubstring("go tool ginkgo --focus=" + thisSpecFocus()))
			Expect(out.Report()).To(ContainSubstring("Record tool results in the order of the calls"))
			Expect(out.Report()).NotTo(ContainSubstring("re-record the scenario"), "re-recording cannot fix an order that depends on the schedule")
		})

		It("takes the number of schedules from AGENTSNAP_SCHEDULES over Options.Schedules", func(ctx SpecContext) {
			GinkgoT().Setenv(judge.SchedulesVar, "3")
			o := opts
			o.Schedules, o.ScheduleSeed, o.Hints = 50, base, inTest
			out, err := judge.Replay(ctx, fx, o)
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Report()).To(ContainSubstring("of 3 schedules (seeds %d..%d)", base, base+2))
		})

		It("takes it from scenario.json's schedules member", func(ctx SpecContext) {
			// Seeds 1..60 flip the helpers both ways, so the search goes
			// red whatever schedule 0 does.
			margin := helperMargin(fx)
			var ms []time.Duration
			for s := int64(1); s <= 60; s++ {
				ms = append(ms, margin(s))
			}
			Expect(slices.Min(ms)).To(BeNumerically("<=", -flipMargin))
			Expect(slices.Max(ms)).To(BeNumerically(">=", flipMargin))
			parsed, err := scenario.Parse([]byte(`{"prompts": ["Ask two helpers at once, then sum up."], "schedules": 60}`), "scenario.json")
			Expect(err).NotTo(HaveOccurred())
			Expect(parsed.Warnings).To(BeEmpty())
			withMember := *fx
			sc := *fx.Scenario
			sc.Schedules = parsed.Schedules
			withMember.Scenario = &sc
			out, err := judge.Replay(ctx, &withMember, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Report()).To(ContainSubstring("of 60 schedules (seeds 1..60)"))
		})
	})

	Describe("an agent that records results in call order", func() {
		It("replays byte for byte under 20 schedules", func(ctx SpecContext) {
			fx, err := fixture.Load("../fixtures/parallel/fan-out")
			Expect(err).NotTo(HaveOccurred())
			res, err := judge.SearchSchedules(ctx, fx, harness.Options{Runtime: agent.Reference}, 20)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Err()).NotTo(HaveOccurred())
			Expect(res.Report()).To(Equal("parallel/fan-out: the replay matches the recording, byte for byte, under 20 schedules (seeds 1..20)"))
		})
	})

	It("goes red for logs that differ only in what the comparison with the recording normalises", func(ctx SpecContext) {
		// Each replay stamps its logs a millisecond later than the last:
		// every one matches the recording, no two write the same bytes.
		var replays atomic.Int64
		ticking := agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			e := *env
			at := agentsnap.Epoch.Add(time.Duration(replays.Add(1)) * time.Millisecond)
			e.Clock = func() time.Time { return at }
			return agent.Reference.Run(ctx, &e)
		})
		fx, err := fixture.Load("../fixtures/parallel/fan-out")
		Expect(err).NotTo(HaveOccurred())
		res, err := judge.SearchSchedules(ctx, fx, harness.Options{Runtime: ticking}, 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unmatched).To(Equal(-1), "each replay matches the recording")
		Expect(res.Diverged).To(Equal(1))
		Expect(res.Passed()).To(BeFalse())
		Expect(res.Report()).To(ContainSubstring("differs only in what the comparison with the recording normalises"))
	})

	It("gives every schedule the replay's verdict on a stale playbook, which is no dependence on the schedule", func(ctx SpecContext) {
		dir := copyFixture("fork/codeword")
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		opts.ReplaceGolden = true
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		editLine(filepath.Join(dir, fixture.PlaybookFile), 1, func(l string) string { return l + " " })
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference, Schedules: 3})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Stale).To(ContainSubstring("changed since the recording"))
		Expect(o.RunErrors).To(BeEmpty(), "every schedule fails alike, on the playbook")
	})

	It("skips seed 0, which means no schedule to -schedule-seed", func(ctx SpecContext) {
		fx, err := fixture.Load("../fixtures/parallel/fan-out")
		Expect(err).NotTo(HaveOccurred())
		res, err := judge.SearchSchedules(ctx, fx, harness.Options{Runtime: agent.Reference, ScheduleSeed: -2}, 4)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Seeds).To(Equal([]int64{-2, -1, 1, 2}))
	})

	DescribeTable("refuses a malformed setting, saying what it wants",
		func(ctx SpecContext, env, value, want string) {
			GinkgoT().Setenv(env, value)
			fx, err := fixture.Load("../fixtures/parallel/fan-out")
			Expect(err).NotTo(HaveOccurred())
			_, err = judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference, Hints: inTest})
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("AGENTSNAP_SCHEDULES", judge.SchedulesVar, "many", `AGENTSNAP_SCHEDULES="many": want a number of schedules such as 50 (0 turns the search off)`),
		Entry("a negative AGENTSNAP_SCHEDULES", judge.SchedulesVar, "-1", `AGENTSNAP_SCHEDULES="-1": want a number`),
		Entry("AGENTSNAP_SCHEDULE_SEED", judge.ScheduleSeedVar, "x", `AGENTSNAP_SCHEDULE_SEED="x": want a schedule seed such as 18`),
	)

	It("reads no flag or variable for the CLI, which has flags of its own", func(ctx SpecContext) {
		GinkgoT().Setenv(judge.SchedulesVar, "many")
		GinkgoT().Setenv(judge.ScheduleSeedVar, "7")
		fx, err := fixture.Load("../fixtures/parallel/fan-out")
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference, ScheduleSeed: 3})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Notes).To(ConsistOf("replayed under the schedule of seed 3"))
	})

	Describe("CompareLogs", func() {
		It("finds no difference between a tree and itself, and names the first event of a swapped pair of results", func() {
			dir := recordCompletionOrder()
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(judge.CompareLogs(fx.Logs, fx.Logs)).To(BeEmpty())

			swapped := slices.Clone(fx.Logs)
			root := *fx.Logs[0]
			root.Events = slices.Clone(root.Events)
			var at []int
			for i, e := range root.Events {
				if e.Type == session.TypeToolResult {
					at = append(at, i)
				}
			}
			Expect(at).To(HaveLen(2))
			root.Events[at[0]].Data, root.Events[at[1]].Data = root.Events[at[1]].Data, root.Events[at[0]].Data
			swapped[0] = &root
			ds := judge.CompareLogs(fx.Logs, swapped)
			Expect(ds).To(HaveLen(1))
			Expect(ds[0].Session).To(Equal("root"))
			Expect(ds[0].Seq).To(Equal(int64(at[0])))
			Expect(ds[0].Type).To(Equal(session.TypeToolResult))
			Expect(ds[0].Field).To(Equal("data.message.content[0].content[0].text"))
			Expect(ds[0].Golden).To(Equal(`"alpha"`))
			Expect(ds[0].Replay).To(Equal(`"beta"`))
		})
	})
})
