package tree_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/onsi/gomega"
)

// Assert the shape of a replayed agent tree: who spawned whom, the tool
// calls in order with their arguments, the model calls of a child and the
// tokens spent. The last assertion fails and prints its message.
func Example() {
	fx, err := fixture.Load("../../fixtures/billing/refund-flow")
	if err != nil {
		panic(err)
	}
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
	if err != nil {
		panic(err)
	}
	g := gomega.NewGomega(func(message string, _ ...int) { fmt.Println(message) })

	g.Expect(o).To(harness.MatchRecording())
	g.Expect(o).To(tree.Spawned("root", "call_draft"))
	g.Expect(o).To(tree.ToolCalls("root", tree.InOrder(
		tree.Call("lookup", gomega.HaveKeyWithValue("key", "order:A-1042")),
		tree.Call("subagent_spawn", gomega.HaveKey("prompt")),
	)))
	g.Expect(o).To(tree.WithinBudget(budget.Limit{Tokens: 1500}))
	g.Expect(o).To(tree.ModelCalls("root/call_draft", 2))
	// Output:
	// expected root/call_draft to make 2 model calls
	// but root/call_draft made 1 model call
	//
	// the agent tree (path, created, depth, seedLength, model calls, tool calls):
	//   root             root                  depth 0  seed 0  3 model calls  tools lookup(call_order) lookup(call_policy) subagent_spawn(call_draft)
	//   root/call_draft  spawn via call_draft  depth 1  seed 0  1 model call   no tool calls
}
