package langchaingo_test

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// root is where the desk's fixtures live; go test runs in the package folder.
const root = "testdata/fixtures"

// opts replays with the desk, the runtime that recorded the fixtures.
var opts = harness.Options{Runtime: runtime}

// fixtures returns the fixture folders.
func fixtures() []string {
	dirs, err := harness.Discover(root)
	if err != nil {
		panic(err)
	}
	return dirs
}

// entries returns one table entry per fixture, named CATEGORY/NAME, whose
// logs hold a session that keep accepts (every fixture for nil). A fixture
// that does not load yet (never recorded) is left to the replay table,
// which says why.
func entries(keep func(*session.Log) bool) []TableEntry {
	var out []TableEntry
	for _, dir := range fixtures() {
		if keep == nil {
			out = append(out, Entry(harness.Name(dir), dir))
			continue
		}
		fx, err := fixture.Load(dir)
		if err != nil {
			continue
		}
		for _, l := range fx.Logs {
			if keep(l) {
				out = append(out, Entry(fx.Name, dir))
				break
			}
		}
	}
	return out
}

func seededFork(l *session.Log) bool {
	return l.Header.Mode == session.ModeFork && l.Header.SeedLength > 0
}

// ignoreSeed derives a child's script from its whole log, the inherited
// prefix included: the mistake the seed slice prevents.
func ignoreSeed(l *session.Log) (*fakellm.Script, error) {
	return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
}

// check replays a fixture and asserts it matches its recording and golden.
func check(dir string) *harness.Outcome {
	o := harness.Run(GinkgoTB(), dir, opts)
	Expect(o).To(harness.MatchRecording())
	Expect(o).To(harness.MatchGolden(GinkgoTB()))
	return o
}

var _ = Describe("the desk's fixtures", func() {
	It("cover several calls in one step, a spawn child, memory across turns, no memory asked twice, a fork-like child, and both children in one step", func() {
		var names []string
		for _, dir := range fixtures() {
			names = append(names, harness.Name(dir))
		}
		Expect(names).To(ConsistOf("tools/several-calls", "spawn/researcher", "memory/follow-up",
			"memoryless/asked-twice", "fork/colleague", "mixed/researcher-and-colleague"))
	})

	// AGENTSNAP_RECORD='.' re-records them from their playbooks first.
	DescribeTable("replay to their recording and their golden transcript",
		func(dir string) {
			o := check(dir)
			Expect(o.Fixture.Scenario.Recorded.Runtime).To(Equal("langchaingo-opsdesk"))
		},
		entries(nil),
	)

	It("record langchaingo's one assistant message per tool call as sent, with the arguments it rewrites", func() {
		o := check(root + "/tools/several-calls")
		Expect(o).To(tree.ToolCalls("root", tree.Exactly(
			tree.Call("service_status", HaveKeyWithValue("__arg1", "billing")),
			tree.Call("service_status", HaveKeyWithValue("__arg1", "search")),
			tree.Call("calculator", HaveKeyWithValue("__arg1", "2400 / 500")),
		)))
		Expect(o).To(tree.ModelCalls("root", 2))
		rs := replaces(o.Replayed[0])
		Expect(rs).To(HaveLen(1))
		Expect(rs[0].Keep).To(Equal(1), "the question is kept")
		var roles, args []string
		for _, m := range rs[0].Messages {
			roles = append(roles, m.Role)
			for _, c := range m.ToolCalls() {
				args = append(args, c.Arguments)
			}
		}
		Expect(roles).To(Equal([]string{"assistant", "tool", "assistant", "tool", "assistant", "tool"}))
		Expect(args).To(Equal([]string{"billing", "search", "2400 / 500"}), "langchaingo sends back the tool input, not the arguments the model sent")
	})

	It("record a researcher as a spawn child of the call that asked it, with its own four calls in one step", func() {
		o := check(root + "/spawn/researcher")
		Expect(o).To(tree.Spawned("root", "call_survey"))
		Expect(o).To(tree.ModelCalls("root/call_survey", 2))
		Expect(o).To(tree.ToolCalls("root/call_survey", tree.Exactly(
			tree.Call("service_status", HaveKeyWithValue("__arg1", "auth")),
			tree.Call("service_status", HaveKeyWithValue("__arg1", "billing")),
			tree.Call("service_status", HaveKeyWithValue("__arg1", "checkout")),
			tree.Call("service_status", HaveKeyWithValue("__arg1", "search")),
		)))
	})

	It("record the remembered conversation a follow-up sends, and the memoryless desk sending the question alone", func() {
		remembering := check(root + "/memory/follow-up")
		turn2 := turnMessages(remembering.Replayed[0], 2)
		Expect(turn2).To(HaveLen(2), "the history message and the question")
		Expect(turn2[0]).To(And(ContainSubstring("Human: Is billing healthy?"), ContainSubstring("AI: No: billing is degraded")))

		forgetful := check(root + "/memoryless/asked-twice")
		Expect(turnMessages(forgetful.Replayed[0], 2)).To(Equal([]string{"By what factor is that p95 over our 500 ms budget?"}))
		var second *session.HistoryReplaceData
		for _, r := range replaces(forgetful.Replayed[0]) {
			if r.Turn == 2 {
				second = &r
			}
		}
		Expect(second).NotTo(BeNil(), "turn 2 does not send turn 1")
		Expect(second.Keep).To(Equal(0))
		Expect(second.Messages).To(BeEmpty(), "the question itself is the user message that starts the turn, after the replaced history")
	})

	It("record a colleague handed the desk's chat history as a fork child that inherits turn 1", func() {
		o := check(root + "/fork/colleague")
		Expect(o).To(tree.Forked("root", "call_draft"))
		Expect(o).To(tree.InheritsTurns("root/call_draft", 1))
		Expect(turnMessages(o.Replayed[1], 2)[0]).To(ContainSubstring("Human: We are tracking incident INC-7"))

		both := check(root + "/mixed/researcher-and-colleague")
		Expect(both).To(tree.Spawned("root", "call_burn"))
		Expect(both).To(tree.Forked("root", "call_draft"))
		Expect(both).To(tree.InheritsTurns("root/call_draft", 1))
		Expect(both).To(tree.InheritsTurns("root/call_burn", 0))
	})

	DescribeTable("a fork fixture fails without the seed slice, naming the fork child, and passes with it",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			var forks []string
			for _, l := range fx.Logs {
				if seededFork(l) {
					forks = append(forks, l.Header.ID)
				}
			}
			Expect(forks).NotTo(BeEmpty())

			By("deriving the child's script from its whole log, inherited prefix included")
			broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: runtime, Deriver: ignoreSeed})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken.Passed()).To(BeFalse())
			diagnosis := errors.Join(append(broken.RunErrors, broken.Consumption)...)
			Expect(diagnosis).To(MatchError(fakellm.ErrPathMismatch), "an inherited answer is served to the child's own turn")
			Expect(broken.Report()).To(ContainSubstring(forks[0]), "the report names the fork child")

			By("deriving it from its own events only")
			fixed, err := judge.Replay(context.Background(), fx, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(fixed).To(harness.MatchRecording())
		},
		entries(seededFork),
	)
})

// replaces returns a log's history/replace payloads, in order.
func replaces(l *session.Log) []session.HistoryReplaceData {
	var out []session.HistoryReplaceData
	for _, e := range l.Events {
		if e.Type != session.TypeHistoryReplace {
			continue
		}
		var d session.HistoryReplaceData
		Expect(json.Unmarshal(e.Data, &d)).To(Succeed())
		out = append(out, d)
	}
	return out
}

// turnMessages returns the texts of the user messages turn n of a log
// starts with.
func turnMessages(l *session.Log, n int) []string {
	var out []string
	turn := 0
	for _, e := range l.Events {
		switch e.Type {
		case session.TypeTurnStart:
			var d session.TurnStartData
			Expect(json.Unmarshal(e.Data, &d)).To(Succeed())
			turn = d.Turn
		case session.TypeUserMessage:
			if turn == n {
				var m session.Message
				Expect(json.Unmarshal(e.Data, &m)).To(Succeed())
				out = append(out, m.Text())
			}
		}
	}
	return out
}
