// Package tree holds Gomega matchers over the agent tree of a replay: who
// spawned or forked whom, what a fork child inherited, which tools each
// session called with which arguments, how many model calls it made, and
// whether the tree stayed within a token or cost budget.
//
// A matcher takes a *harness.Outcome (its replayed logs), a
// *fixture.Fixture (its recorded logs) or a []*session.Log. Sessions are
// named by lineage path — "root", "root/call_plan", "root/call_plan/call_weather",
// the creating tool call ids from the root down (see session.LineageKeys) —
// so a spec does not depend on the ids a runtime gives its sessions.
//
//	o := harness.Run(GinkgoTB(), "fixtures/billing/refund-flow", harness.Options{Runtime: agent.Reference})
//	Expect(o).To(harness.MatchRecording())
//	Expect(o).To(tree.Spawned("root", "call_draft"))
//	Expect(o).To(tree.ToolCalls("root", tree.InOrder(
//		tree.Call("lookup", HaveKeyWithValue("key", "order:A-1042")),
//		tree.Call("subagent_spawn"),
//	)))
//	Expect(o).To(tree.ModelCalls("root/call_draft", 1))
//	Expect(o).To(tree.WithinBudget(budget.Limit{Tokens: 1500}))
//
// Tool calls are matched as a list by Exactly (all, in order), InOrder (a
// subsequence), InAnyOrder (all, any order) or Including (a subset), each
// of Call matchers: a tool name and Gomega matchers of the arguments decoded
// to a map[string]any.
//
// Every failure says what was expected and what the tree holds, then shows
// the tree, one line per session:
//
//	expected the tool calls of root to be exactly these, in this order:
//	    1. lookup(HaveKeyWithValue(Key: "key", Value: "release"))
//	    2. subagent_spawn
//	but root made:
//	    1. lookup {"key":"order:A-1042"} (call_order)
//	    2. lookup {"key":"policy:refunds"} (call_policy)
//	    3. subagent_spawn {"description":"Draft the refund reply","prompt":"Draft a one-sentence reply telling a customer that order A-1042 (58.00 EUR) will be refunded in full."} (call_draft)
//	call 1 does not match wanted call 1: the arguments of lookup {"key":"order:A-1042"} (call_order) do not match:
//	      Expected
//	          <map[string]interface {} | len:1>: {
//	              "key": <string>"order:A-1042",
//	          }
//	      to have {key: value}
//	          <map[interface {}]interface {} | len:1>: {
//	              <string>"key": <string>"release",
//	          }
//
//	the agent tree (path, created, depth, seedLength, model calls, tool calls):
//	  root             root                  depth 0  seed 0  3 model calls  tools lookup(call_order) lookup(call_policy) subagent_spawn(call_draft)
//	  root/call_draft  spawn via call_draft  depth 1  seed 0  1 model call   no tool calls
//
// The matchers only read the logs; they do not judge the replay, so pair
// them with harness.MatchRecording. They are safe to use from parallel
// specs: a matcher value keeps no state of its own between matches.
package tree
