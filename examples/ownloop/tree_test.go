package ownloop_test

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/harness/tree"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Beyond the byte-for-byte comparison, a team asserts what matters about
// its tree in its own words: who delegated to whom, which tools ran with
// which arguments, how many model calls a helper made.
var _ = Describe("the tree of spawn/two-helpers", func() {
	It("is two spawned helpers, each calling its one tool once", func() {
		o := harness.Run(GinkgoTB(), filepath.Join("testdata", "fixtures", "spawn", "two-helpers"), opts)
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(tree.Spawned("root", "call_price"))
		Expect(o).To(tree.Spawned("root", "call_words"))
		Expect(o).To(tree.ToolCalls("root", tree.Exactly(
			tree.Call("subagent_spawn", HaveKeyWithValue("task", ContainSubstring("120 EUR"))),
			tree.Call("subagent_spawn", HaveKeyWithValue("task", ContainSubstring("quick brown fox"))),
		)))
		Expect(o).To(tree.ToolCalls("root/call_price", tree.Exactly(
			tree.Call("convert", And(HaveKeyWithValue("amount", BeEquivalentTo(120)), HaveKeyWithValue("to", "USD"))),
		)))
		Expect(o).To(tree.ModelCalls("root/call_words", 2))
		Expect(o).NotTo(tree.ToolCalls("root/call_words", tree.Including(tree.Call("convert"))))
	})
})
