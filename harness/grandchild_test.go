package harness_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A grandchild forked in the first own turn of a fork child: at that point
// the fork child's completed turns are only the ones it inherited, so the
// grandchild inherits exactly those — the root's turn 1 — and nothing of
// the fork child's running turn.
const (
	grandchildScenario = `{
  "description": "A fork child forks a grandchild in its first own turn.",
  "prompts": [
    "Remember: the codeword is MARMALADE. Reply OK.",
    "Fork a child that forks a grandchild to tell the codeword, and repeat the answer."
  ],
  "agent": {"preset": "default", "system": "You are a test agent.", "tools": ["subagent_spawn", "subagent_fork"]},
  "maxDepth": 2
}`
	grandchildPlaybook = `{"sessions": {
  "root": [
    {"text": "OK"},
    {"toolCalls": [{"id": "call_child", "name": "subagent_fork", "arguments": {"description": "Relay", "prompt": "Fork a grandchild to tell the codeword."}}]},
    {"text": "MARMALADE"}
  ],
  "call_child": [
    {"toolCalls": [{"id": "call_grandchild", "name": "subagent_fork", "arguments": {"description": "Codeword", "prompt": "What is the codeword?"}}]},
    {"text": "MARMALADE"}
  ],
  "call_grandchild": [{"text": "MARMALADE, says the grandchild"}]
}}`
)

// recordGrandchild writes the scenario and records it from its playbook
// with the reference runtime.
func recordGrandchild() string {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "fork", "grandchild-first-turn")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(grandchildScenario), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "playbook.json"), []byte(grandchildPlaybook), 0o644)).To(Succeed())
	opts, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	opts.Runtime = agent.Reference
	opts.By = "grandchild_test"
	_, err = recorder.Record(context.Background(), dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// sliceExceptAt derives every session's script from its own events but
// those at delegationDepth depth, whose inherited prefix it replays too.
func sliceExceptAt(depth int) fakellm.Deriver {
	return func(l *session.Log) (*fakellm.Script, error) {
		return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: l.Header.DelegationDepth == depth})
	}
}

var _ = Describe("a grandchild forked in a fork child's first own turn", Ordered, func() {
	var (
		dir                     string
		fx                      *fixture.Fixture
		root, child, grandchild *session.Log
	)
	BeforeAll(func() {
		dir = recordGrandchild()
		var err error
		fx, err = fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		root, child, grandchild = fx.Logs[0], fx.Logs[1], fx.Logs[2]
	})

	It("inherits the fork child's completed turns, which are only the inherited ones", func() {
		Expect(child.Header.SeedLength).To(Equal(12), "the fork child inherits root turn 1")
		Expect(root.Events[11].Type).To(Equal(session.TypeTurnEnd))
		fork := -1
		for i, e := range child.Events {
			if e.Type == session.TypeToolCall {
				fork = i
			}
		}
		Expect(fork).To(BeNumerically(">", child.Header.SeedLength), "the fork child forks in its own turn")
		Expect(session.CompletedPrefix(child.Events[:fork])).To(Equal(child.Header.SeedLength), "its completed turns are the inherited ones")

		h := grandchild.Header
		Expect(h.ID).To(Equal("root/call_child/call_grandchild"))
		Expect(h.ParentSession).To(Equal(child.Header.ID))
		Expect(h.ParentCallID).To(Equal("call_grandchild"))
		Expect(h.Mode).To(Equal(session.ModeFork))
		Expect(h.DelegationDepth).To(Equal(2))
		Expect(h.SeedLength).To(Equal(child.Header.SeedLength), "the fork child had completed no turn of its own")
		Expect(session.CheckSeedBoundary(grandchild.Events, h.SeedLength)).To(Succeed())
		for i := range h.SeedLength {
			g, c, r := grandchild.Events[i], child.Events[i], root.Events[i]
			Expect(g.Type).To(Equal(c.Type))
			Expect(g.Seq).To(Equal(c.Seq))
			Expect(bytes.Equal(g.Data, c.Data)).To(BeTrue(), "inherited event %d is the fork child's, verbatim", i)
			Expect(bytes.Equal(c.Data, r.Data)).To(BeTrue(), "and the root's")
		}

		var start session.TurnStartData
		first := grandchild.Events[h.SeedLength]
		Expect(first.Type).To(Equal(session.TypeTurnStart))
		Expect(first.Decode(&start)).To(Succeed())
		Expect(start).To(Equal(session.TurnStartData{Turn: 2, Trigger: "subagent"}), "its own turn follows the inherited turn 1")
	})

	It("replays its own answers: its script is its own call, not the inherited one", func() {
		own, err := fakellm.DeriveLog(grandchild, fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(own.Entries).To(HaveLen(1))
		Expect(own.Entries[0].Turn).To(Equal(2))
		Expect(entryText(own.Entries[0])).To(Equal("MARMALADE, says the grandchild"))

		whole, err := fakellm.DeriveLog(grandchild, fakellm.DeriveOptions{IgnoreSeed: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.Entries).To(HaveLen(2))
		Expect(entryText(whole.Entries[0])).To(Equal("OK"), "the inherited call: the root's turn 1 answer")
	})

	It("replays the recording and its golden", func(ctx SpecContext) {
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeTrue(), o.Report())
		Expect(o.Calls).To(Equal(3 + 2 + 1))
		Expect(judge.CompareGolden(o).Message).To(BeEmpty())
		Expect(o.Transcript).To(ContainSubstring("MARMALADE, says the grandchild"))
	})

	It("is mis-routed by a deriver without the slice, which the failure names", func(ctx SpecContext) {
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference, Deriver: sliceExceptAt(2)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		diagnosis := errors.Join(append(o.RunErrors, o.Consumption)...)
		Expect(diagnosis).To(MatchError(fakellm.ErrPathMismatch), "the grandchild's own turn is served its inherited call")
		Expect(diagnosis.Error()).To(ContainSubstring("root/call_child/call_grandchild"))
		Expect(o.Report()).To(ContainSubstring("root/call_child/call_grandchild"))

		// Without the slice anywhere, the fork child is mis-routed first.
		o, err = judge.Replay(ctx, fx, harness.Options{Runtime: agent.Reference, Deriver: func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		diagnosis = errors.Join(append(o.RunErrors, o.Consumption)...)
		Expect(diagnosis).To(MatchError(fakellm.ErrPathMismatch))
		Expect(diagnosis.Error()).To(ContainSubstring("root/call_child"))
	})
})

// entryText is the text a script entry's chunks stream.
func entryText(e fakellm.Entry) string {
	var b bytes.Buffer
	for _, c := range e.Chunks {
		if c.Type == session.ChunkTextDelta {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
