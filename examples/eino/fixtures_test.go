package eino_test

import (
	"context"
	"errors"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// root is where the desk's fixtures live; go test runs in the module's folder.
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

// entries returns one table entry per fixture, named CATEGORY/NAME, that
// keep accepts (every fixture for nil). A fixture that does not load is
// left to the replay table, which says why.
func entries(keep func(*fixture.Fixture) bool) []TableEntry {
	var out []TableEntry
	for _, dir := range fixtures() {
		if keep == nil {
			out = append(out, Entry(harness.Name(dir), dir))
			continue
		}
		if fx, err := fixture.Load(dir); err == nil && keep(fx) {
			out = append(out, Entry(fx.Name, dir))
		}
	}
	return out
}

// withLog accepts a fixture with a session log that keep accepts.
func withLog(keep func(*session.Log) bool) func(*fixture.Fixture) bool {
	return func(fx *fixture.Fixture) bool {
		for _, l := range fx.Logs {
			if keep(l) {
				return true
			}
		}
		return false
	}
}

// parallel accepts a fixture in which one answer creates two children or
// more: Eino runs that step's tool calls at once.
func parallel(fx *fixture.Fixture) bool {
	creators := map[string]bool{} // "session callID" of every child's creating call
	for _, l := range fx.Logs[1:] {
		creators[l.Header.ParentSession+" "+l.Header.ParentCallID] = true
	}
	for _, l := range fx.Logs {
		perStep := map[[2]int]int{}
		for _, e := range l.Own() {
			if e.Type != session.TypeToolCall {
				continue
			}
			var c struct {
				Turn, Step int
				CallID     string
			}
			if e.Decode(&c) == nil && creators[l.Header.ID+" "+c.CallID] {
				perStep[[2]int{c.Turn, c.Step}]++
			}
		}
		for _, n := range perStep {
			if n > 1 {
				return true
			}
		}
	}
	return false
}

func seededFork(l *session.Log) bool {
	return l.Header.Mode == session.ModeFork && l.Header.SeedLength > 0
}

// ignoreSeed derives a child's script from its whole log, the inherited
// prefix included: the mistake the seed slice prevents.
func ignoreSeed(l *session.Log) (*fakellm.Script, error) {
	return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
}

// logOf returns the log of the session id in logs.
func logOf(logs []*session.Log, id string) *session.Log {
	for _, l := range logs {
		if l.Header.ID == id {
			return l
		}
	}
	Fail("no log of session " + id)
	return nil
}

// userTexts returns the texts of the user/message events of events.
func userTexts(events []session.Event) []string {
	var out []string
	for _, e := range events {
		if e.Type == session.TypeUserMessage {
			var m session.Message
			Expect(e.Decode(&m)).To(Succeed())
			out = append(out, m.Text())
		}
	}
	return out
}

var _ = Describe("the desk's fixtures", func() {
	It("cover parallel scouts, the critic after a completed turn, both kinds of helper in one answer, and a turn after lookups run at once", func() {
		var names []string
		for _, dir := range fixtures() {
			names = append(names, harness.Name(dir))
		}
		Expect(names).To(ConsistOf("parallel/two-scouts", "fork/critic", "mixed/scout-and-critic", "handoff/cashier", "tools/two-titles"))
	})

	// AGENTSNAP_RECORD='.' re-records them from their playbooks first.
	DescribeTable("replay to their recording and their golden transcript",
		func(dir string) {
			o := harness.Run(GinkgoTB(), dir, opts)
			Expect(o).To(harness.MatchRecording())
			Expect(o).To(harness.MatchGolden(GinkgoTB()))
			Expect(o.Fixture.Scenario.Recorded.Runtime).To(Equal("eino"))
			switch o.Fixture.Name {
			case "handoff/cashier", "tools/two-titles": // a handoff goes on in its session; tools make none
			default:
				Expect(len(o.Replayed)).To(BeNumerically(">", 1), "every other fixture delegates: the wire layer wrote a log per session")
			}
		},
		entries(nil),
	)

	DescribeTable("record the critic with the parent's completed turns as its seed, and its first request as Eino sent it: \"For context:\" user messages",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for _, child := range fx.Logs {
				if !seededFork(child) {
					continue
				}
				parent := logOf(fx.Logs, child.Header.ParentSession)
				n := child.Header.SeedLength

				By("the seed: the parent's events up to the turn/end of its last completed turn, as the parent wrote them")
				Expect(child.Events[n-1].Type).To(Equal(session.TypeTurnEnd))
				Expect(session.CompletedPrefix(parent.Events[:n])).To(Equal(n))
				for i, e := range child.Seed() {
					Expect(e.Type).To(Equal(parent.Events[i].Type), "seed event %d", i)
					Expect(string(e.Data)).To(Equal(string(parent.Events[i].Data)), "seed event %d", i)
				}
				var turn struct{ Turn int }
				Expect(parent.Events[n].Decode(&turn)).To(Succeed())
				Expect(parent.Events[n].Type).To(Equal(session.TypeTurnStart))
				Expect(turn.Turn).To(Equal(2), "the parent's next turn is the one that asks the critic")

				By("its own turn: a history/replace first — of the inherited conversation, the first message (the user's own words) is all it sends as it was")
				own := child.Own()
				var replaced []session.HistoryReplaceData
				for _, e := range own {
					if e.Type == session.TypeHistoryReplace {
						var h session.HistoryReplaceData
						Expect(e.Decode(&h)).To(Succeed())
						replaced = append(replaced, h)
					}
				}
				Expect(replaced).To(HaveLen(1))
				Expect(replaced[0].Keep).To(Equal(1), "only the first user message is sent as the parent's log has it")
				Expect(replaced[0].Messages).To(BeEmpty())
				Expect(own[1].Type).To(Equal(session.TypeHistoryReplace), "right after the turn/start, before the messages that start the turn")

				By("then the messages of its first request, all user messages: Eino's rewrite of the conversation")
				texts := userTexts(own)
				Expect(len(texts)).To(BeNumerically(">", 2), "a turn that starts with several user messages")
				Expect(texts[0]).To(HavePrefix("For context: [folio] called tool: `catalog`"))
				Expect(texts).To(ContainElement(HavePrefix("For context: [folio] said: ")))
				Expect(texts[len(texts)-1]).To(Equal("For context: [folio] `transfer_to_agent` tool returned result: successfully transferred to agent [critic]."))
			}
		},
		entries(withLog(seededFork)),
	)

	DescribeTable("a fork fixture fails without the seed slice, naming the critic, and passes with it",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			var forks []string
			for _, l := range fx.Logs {
				if seededFork(l) {
					forks = append(forks, l.Header.ID)
				}
			}
			Expect(forks).To(HaveLen(1))
			Expect(forks[0]).To(HavePrefix("root/call_"))

			By("deriving the critic's script from its whole log, inherited prefix included")
			broken, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: runtime, Deriver: ignoreSeed})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken.Passed()).To(BeFalse())
			diagnosis := errors.Join(append(broken.RunErrors, broken.Consumption)...)
			Expect(diagnosis).To(MatchError(fakellm.ErrPathMismatch), "an inherited answer is served to the critic's own turn")
			Expect(broken.Report()).To(ContainSubstring(forks[0]), "the report names the critic's session")

			By("deriving it from its own events only")
			fixed, err := judge.Replay(context.Background(), fx, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(fixed).To(harness.MatchRecording())
		},
		entries(withLog(seededFork)),
	)

	It("include answers whose helpers Eino runs at once", func() {
		Expect(entries(parallel)).To(HaveLen(2))
	})

	DescribeTable("replay the same whatever order Eino's parallel tool calls run in",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for range 20 {
				o, err := judge.Replay(context.Background(), fx, opts)
				Expect(err).NotTo(HaveOccurred())
				Expect(o).To(harness.MatchRecording())
			}
		},
		entries(parallel),
	)
})
