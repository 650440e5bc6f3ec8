package tree_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// replay replays a committed fixture.
func replay(name string) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(filepath.Join("..", "..", "fixtures", name))
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
	Expect(err).NotTo(HaveOccurred())
	Expect(o).To(harness.MatchRecording())
	return o
}

// failure runs the assertion and returns its one failure message.
func failure(assert func()) string {
	GinkgoHelper()
	failures := InterceptGomegaFailures(assert)
	Expect(failures).To(HaveLen(1), "the assertion should fail")
	return failures[0]
}

const treeHeader = "the agent tree (path, created, depth, seedLength, model calls, tool calls):\n"

const refundTree = treeHeader +
	"  root             root                  depth 0  seed 0  3 model calls  tools lookup(call_order) lookup(call_policy) subagent_spawn(call_draft)\n" +
	"  root/call_draft  spawn via call_draft  depth 1  seed 0  1 model call   no tool calls"

const spawnForkTree = treeHeader +
	"  root              root                  depth 0  seed 0   4 model calls  tools subagent_spawn(call_alpha) subagent_fork(call_recall)\n" +
	"  root/call_alpha   spawn via call_alpha  depth 1  seed 0   1 model call   no tool calls\n" +
	"  root/call_recall  fork via call_recall  depth 1  seed 12  1 model call   no tool calls"

var _ = Describe("tree matchers on committed fixtures", func() {
	DescribeTable("pass on what the recording holds",
		func(fixture string, m types.GomegaMatcher) {
			Expect(replay(fixture)).To(m)
		},
		Entry("a spawn child", "mixed/spawn-then-fork", tree.Spawned("root", "call_alpha")),
		Entry("a fork child", "mixed/spawn-then-fork", tree.Forked("root", "call_recall")),
		Entry("a grandchild by its parent's path", "mixed/fork-spawns-grandchild", tree.Spawned("root/call_plan", "call_weather")),
		Entry("a fork of a spawn child", "parallel/nested-fan-out", tree.Forked("root/call_s1", "call_ready")),
		Entry("a fork child's inherited turns", "mixed/spawn-then-fork", tree.InheritsTurns("root/call_recall", 1)),
		Entry("a spawn child inherits none", "mixed/spawn-then-fork", tree.InheritsTurns("root/call_alpha", 0)),
		Entry("a fork on the parent's first turn inherits none", "fork/first-turn", tree.InheritsTurns("root/call_fork_1", 0)),
		Entry("model calls as a number", "mixed/spawn-then-fork", tree.ModelCalls("root", 4)),
		Entry("model calls, retries included", "errors/throw-midway", tree.ModelCalls("root", 2)),
		Entry("model calls with a matcher", "mixed/spawn-then-fork", tree.ModelCalls("root/call_recall", BeNumerically("<=", 1))),
		Entry("tool calls exactly", "billing/refund-flow", tree.ToolCalls("root", tree.Exactly(
			tree.Call("lookup", HaveKeyWithValue("key", "order:A-1042")),
			tree.Call("lookup", HaveKeyWithValue("key", "policy:refunds")),
			tree.Call("subagent_spawn", HaveKeyWithValue("prompt", ContainSubstring("A-1042")), HaveKey("description")),
		))),
		Entry("tool calls in order", "billing/refund-flow", tree.ToolCalls("root", tree.InOrder(
			tree.Call("lookup", HaveKeyWithValue("key", "policy:refunds")),
			tree.Call("subagent_spawn"),
		))),
		Entry("tool calls in any order", "billing/refund-flow", tree.ToolCalls("root", tree.InAnyOrder(
			tree.Call("subagent_spawn"),
			tree.Call("lookup", HaveKeyWithValue("key", "policy:refunds")),
			tree.Call("lookup"),
		))),
		Entry("tool calls including", "billing/refund-flow", tree.ToolCalls("root", tree.Including(tree.Call("subagent_spawn")))),
		Entry("no tool calls", "billing/refund-flow", tree.ToolCalls("root/call_draft", tree.Exactly())),
		Entry("tool calls with any Gomega matcher", "billing/refund-flow", tree.ToolCalls("root", HaveLen(3))),
		Entry("a fork child's own tool calls, not its seed's", "mixed/fork-spawns-grandchild", tree.ToolCalls("root/call_plan", tree.Exactly(tree.Call("subagent_spawn")))),
		Entry("a budget", "billing/refund-flow", tree.WithinBudget(budget.Limit{Tokens: 1198, SessionTokens: 1077})),
	)

	It("accept a fixture's recorded logs and a []*session.Log as well", func() {
		fx, err := fixture.Load("../../fixtures/mixed/spawn-then-fork")
		Expect(err).NotTo(HaveOccurred())
		Expect(fx).To(tree.Forked("root", "call_recall"))
		Expect(fx.Logs).To(tree.Forked("root", "call_recall"))
	})

	It("name sessions by lineage path whatever ids the runtime gave", func() {
		fx, err := fixture.Load("../../fixtures/mixed/fork-spawns-grandchild")
		Expect(err).NotTo(HaveOccurred())
		renamed := map[string]string{}
		for i, l := range fx.Logs {
			renamed[l.Header.ID] = "sess-" + strings.Repeat("x", i+1)
		}
		var logs []*session.Log
		for _, l := range fx.Logs {
			c := *l
			c.Header.ID = renamed[l.Header.ID]
			if p := l.Header.ParentSession; p != "" {
				c.Header.ParentSession = renamed[p]
			}
			logs = append(logs, &c)
		}
		Expect(logs).To(tree.Forked("root", "call_plan"))
		Expect(logs).To(tree.Spawned("root/call_plan", "call_weather"))
		Expect(logs).To(tree.ModelCalls("root/call_plan/call_weather", 1))
	})

	It("decode arguments to map[string]any, numbers to float64", func() {
		logs := []*session.Log{rootLog(`{"a":2,"b":{"c":[1,"x"]}}`)}
		Expect(logs).To(tree.ToolCalls("root", tree.Exactly(tree.Call("add",
			HaveKeyWithValue("a", 2.0),
			HaveKeyWithValue("b", HaveKeyWithValue("c", ConsistOf(1.0, "x"))),
		))))
		Expect(logs).NotTo(tree.ToolCalls("root", tree.Exactly(tree.Call("add", HaveKeyWithValue("a", 2)))), "2 is an int, the argument a float64")
	})

	It("see a fork child's own tool calls and count its inherited turns, not its seed's calls", func() {
		t1 := turn(1, "call_look", "lookup", `{"key":"a"}`)
		root := build(session.Header{ID: "r"}, append(slices.Clone(t1), turn(2, "call_f", "subagent_fork", "{}")...)...)
		child := build(session.Header{ID: "c", ParentSession: "r", ParentCallID: "call_f", Mode: session.ModeFork, SeedLength: len(t1), DelegationDepth: 1},
			append(slices.Clone(t1), turn(2, "call_add", "add", `{"a":1,"b":2}`)...)...)
		logs := []*session.Log{root, child}
		Expect(logs).To(tree.ToolCalls("root/call_f", tree.Exactly(tree.Call("add"))))
		Expect(logs).To(tree.InheritsTurns("root/call_f", 1))
		Expect(logs).To(tree.ToolCalls("root", tree.Exactly(tree.Call("lookup"), tree.Call("subagent_fork"))))
	})

	It("refuse what is not a tree with an error naming what they take", func() {
		ok, err := tree.ModelCalls("root", 1).Match("fixtures/x")
		Expect(ok).To(BeFalse())
		Expect(err).To(MatchError("tree.ModelCalls expects a *harness.Outcome, a *fixture.Fixture or a []*session.Log, got string"))
		_, err = tree.Forked("root", "c").Match([]*session.Log{})
		Expect(err).To(MatchError(ContainSubstring("there are no session logs")))
		_, err = tree.Call("add").Match(3)
		Expect(err).To(MatchError("tree.Call expects a tree.ToolCall, got int"))
		_, err = tree.InOrder().Match("x")
		Expect(err).To(MatchError(ContainSubstring("expect a []tree.ToolCall")))
	})
})

// ev is one event to build a log from.
type ev struct {
	typ  string
	data any
}

// build makes a log of the events, seq counted from 0.
func build(h session.Header, evs ...ev) *session.Log {
	GinkgoHelper()
	l := &session.Log{Header: h}
	for _, x := range evs {
		e, err := session.NewEvent(x.typ, x.data)
		Expect(err).NotTo(HaveOccurred())
		e.Seq = int64(len(l.Events))
		l.Events = append(l.Events, e)
	}
	return l
}

// turn is a completed turn whose step 1 makes one tool call.
func turn(n int, callID, name, args string) []ev {
	return []ev{
		{session.TypeTurnStart, session.TurnStartData{Turn: n}},
		{session.TypeToolCall, session.ToolCallData{Turn: n, Step: 1, CallID: callID, Name: name, Arguments: args}},
		{session.TypeTurnEnd, session.TurnEndData{Turn: n, Reason: session.EndReason{Kind: session.TurnCompleted}}},
	}
}

// rootLog is a root session with one tool call add(args).
func rootLog(args string) *session.Log {
	GinkgoHelper()
	return build(session.Header{ID: "r1"}, turn(1, "call_1", "add", args)...)
}

var _ = Describe("tree matcher failures", func() {
	It("show what was expected, what the tree holds, and the tree", func() {
		o := replay("mixed/spawn-then-fork")
		Expect(failure(func() { Expect(o).To(tree.Forked("root", "call_alpha")) })).To(Equal(
			"expected root's call call_alpha to have forked a session\nbut it spawned root/call_alpha\n\n" + spawnForkTree))
		Expect(failure(func() { Expect(o).NotTo(tree.Forked("root", "call_recall")) })).To(Equal(
			"expected root's call call_recall not to have forked a session\nbut it forked root/call_recall\n\n" + spawnForkTree))
	})

	DescribeTable("fail each way with a clear reason",
		func(fixture string, m types.GomegaMatcher, reason string) {
			msg := failure(func() { Expect(replay(fixture)).To(m) })
			Expect(msg).To(HavePrefix("expected "))
			Expect(msg).To(ContainSubstring("\nbut " + reason))
			Expect(msg).To(ContainSubstring("\n\n" + treeHeader))
		},
		Entry("a spawn where a fork was expected", "mixed/spawn-then-fork", tree.Spawned("root", "call_recall"),
			"it forked root/call_recall"),
		Entry("a call that created no session", "billing/refund-flow", tree.Spawned("root", "call_order"),
			"root's call call_order (lookup) created no session"),
		Entry("a call never made", "billing/refund-flow", tree.Spawned("root", "call_nope"),
			"root made no call call_nope"),
		Entry("a parent that is not in the tree", "billing/refund-flow", tree.Forked("root/call_x", "call_y"),
			"there is no session root/call_x; the sessions are root, root/call_draft"),
		Entry("a fork that inherits another number of turns", "mixed/spawn-then-fork", tree.InheritsTurns("root/call_recall", 2),
			"root/call_recall (fork) inherits 1 turn (seedLength 12)"),
		Entry("a spawn child that inherits nothing", "mixed/spawn-then-fork", tree.InheritsTurns("root/call_alpha", BeNumerically(">", 0)),
			"root/call_alpha (spawn) inherits 0 turns (seedLength 0)"),
		Entry("another number of model calls", "billing/refund-flow", tree.ModelCalls("root/call_draft", 2),
			"root/call_draft made 1 model call"),
		Entry("model calls failing a matcher", "errors/throw-midway", tree.ModelCalls("root", BeNumerically("<", 2)),
			"root made 2 model calls"),
		Entry("model calls of a missing session", "billing/refund-flow", tree.ModelCalls("root/call_order", 1),
			"there is no session root/call_order"),
	)

	It("say which call breaks Exactly and how its arguments differ", func() {
		msg := failure(func() {
			Expect(replay("billing/refund-flow")).To(tree.ToolCalls("root", tree.Exactly(
				tree.Call("lookup", HaveKeyWithValue("key", "release")),
				tree.Call("subagent_spawn"),
			)))
		})
		Expect(msg).To(HavePrefix(`expected the tool calls of root to be exactly these, in this order:
    1. lookup(HaveKeyWithValue(Key: "key", Value: "release"))
    2. subagent_spawn
but root made:
    1. lookup {"key":"order:A-1042"} (call_order)
    2. lookup {"key":"policy:refunds"} (call_policy)
    3. subagent_spawn {"description":"Draft the refund reply",`))
		Expect(msg).To(ContainSubstring(`call 1 does not match wanted call 1: the arguments of lookup {"key":"order:A-1042"} (call_order) do not match:
      Expected`))
		Expect(msg).To(ContainSubstring(`to have {key: value}`))
		Expect(msg).To(HaveSuffix("\n\n" + refundTree))
	})

	DescribeTable("say why a list of tool calls does not match",
		func(calls types.GomegaMatcher, problem string) {
			msg := failure(func() { Expect(replay("billing/refund-flow")).To(tree.ToolCalls("root", calls)) })
			Expect(msg).To(ContainSubstring("\n" + problem + "\n\n" + treeHeader))
		},
		Entry("Exactly, a call too many", tree.Exactly(tree.Call("lookup"), tree.Call("lookup")),
			`3 calls made, 2 wanted: call 3, subagent_spawn {"description":"Draft the refund reply","prompt":"Draft a one-sentence reply telling a customer that order A-1042 (58.00 EUR) will be refunded in full."} (call_draft), is one too many`),
		Entry("Exactly, a call missing", tree.Exactly(tree.Call("lookup"), tree.Call("lookup"), tree.Call("subagent_spawn"), tree.Call("add")),
			"3 calls made, 4 wanted: wanted call 4, add, is missing"),
		Entry("Exactly, another tool", tree.Exactly(tree.Call("subagent_spawn"), tree.Call("lookup"), tree.Call("lookup")),
			`call 1 does not match wanted call 1: lookup {"key":"order:A-1042"} (call_order) calls lookup, not subagent_spawn`),
		Entry("InOrder, a call too early", tree.InOrder(tree.Call("subagent_spawn"), tree.Call("lookup")),
			"wanted call 1 matches call 3; wanted call 2, lookup, matches no call after call 3 (call 1 matches it, too early)"),
		Entry("InOrder, arguments nowhere", tree.InOrder(tree.Call("lookup", HaveKeyWithValue("key", "policy:refunds")), tree.Call("lookup", HaveKeyWithValue("key", "order:B-7"))),
			`wanted call 1 matches call 2; wanted call 2, lookup(HaveKeyWithValue(Key: "key", Value: "order:B-7")), matches no call after call 2`),
		Entry("InAnyOrder, a call not wanted", tree.InAnyOrder(tree.Call("subagent_spawn"), tree.Call("lookup")),
			"3 calls made, 2 wanted"),
		Entry("InAnyOrder, calls unmatched both ways", tree.InAnyOrder(tree.Call("add"), tree.Call("lookup"), tree.Call("lookup")),
			`wanted call 1, add, matches no call
call 3, subagent_spawn {"description":"Draft the refund reply","prompt":"Draft a one-sentence reply telling a customer that order A-1042 (58.00 EUR) will be refunded in full."} (call_draft), matches no wanted call`),
		Entry("Including, a call nowhere", tree.Including(tree.Call("subagent_fork")),
			"wanted call 1, subagent_fork, matches no call"),
		Entry("Including, one call wanted twice", tree.Including(tree.Call("subagent_spawn"), tree.Call("subagent_spawn")),
			"every wanted call matches some call, but not each a call of its own: two wanted calls match the same one"),
	)

	It("show where the nearest call of the wanted tool differs", func() {
		msg := failure(func() {
			Expect(replay("billing/refund-flow")).To(tree.ToolCalls("root", tree.Including(tree.Call("lookup", HaveKeyWithValue("key", "order:B-7")))))
		})
		Expect(msg).To(ContainSubstring(`wanted call 1, lookup(HaveKeyWithValue(Key: "key", Value: "order:B-7")), matches no call; the nearest, call 1: the arguments of lookup {"key":"order:A-1042"} (call_order) do not match:`))
	})

	It("show a foreign matcher's own message", func() {
		msg := failure(func() { Expect(replay("billing/refund-flow")).To(tree.ToolCalls("root", HaveLen(2))) })
		Expect(msg).To(HavePrefix("expected the tool calls of root to match HaveLen(Count: 2)\n"))
		Expect(msg).To(ContainSubstring("to have length 2"))
	})

	It("show a budget's breaches and the usage of every session", func() {
		o := replay("billing/refund-flow")
		o.Fixture.Scenario.Prices = budget.Prices{"playbook": {Input: 0.15, Output: 0.6}}
		msg := failure(func() { Expect(o).To(tree.WithinBudget(budget.Limit{Tokens: 1000, Cost: 0.0003})) })
		Expect(msg).To(Equal("expected the tree to be within its budget\nbut it does not:\n" +
			"  the tree used 1198 tokens, over the limit of 1000\n" +
			"  the tree cost 0.00030885, over the limit of 0.0003\n\n" + refundTree + "\n\n" +
			"usage per session:\n" +
			"  session          calls  input  cache read  output  reasoning  total        cost\n" +
			"  root                 3    828           0     249          0   1077   0.0002736\n" +
			"  root/call_draft      1     83           0      38          0    121  0.00003525\n" +
			"  tree                 4    911           0     287          0   1198  0.00030885"))
		Expect(failure(func() { Expect(o).NotTo(tree.WithinBudget(budget.Limit{Tokens: 2000})) })).To(
			HavePrefix("expected the tree to exceed its budget\nbut it is: 1198 tokens (911 input, 287 output)\n"))
	})

	It("fail growth over a baseline recording", func() {
		base, err := budget.Of(replay("errors/throw-midway").Replayed)
		Expect(err).NotTo(HaveOccurred())
		msg := failure(func() {
			Expect(replay("billing/refund-flow")).To(tree.WithinBudget(budget.Limit{Baseline: base, Growth: 0.5}))
		})
		Expect(msg).To(ContainSubstring("but it does not:\n  the tree's tokens grew by 1361.0% over the baseline (82 -> 1198), more than the allowed 50.0%\n"))
	})
})
