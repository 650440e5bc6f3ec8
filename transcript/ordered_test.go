package transcript_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("RenderOrdered", func() {
	It("is Render of logs a caller already put in lineage order", func() {
		root, spawned, forked := delegationTree()
		ordered, err := session.LineageOrder([]*session.Log{forked.log, root.log, spawned.log})
		Expect(err).NotTo(HaveOccurred())
		got, err := transcript.RenderOrdered(ordered)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(delegationTranscript))
	})

	It("renders the logs in the order given, which it does not order again", func() {
		root, spawned, forked := delegationTree()
		got, err := transcript.RenderOrdered([]*session.Log{root.log, forked.log, spawned.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).NotTo(Equal(delegationTranscript))
		Expect(got).To(ContainSubstring("== session 1: fork of root via call_fork, depth 1 =="))
	})

	// A tree of hundreds renders in pieces on every processor: the text is
	// still each session's section, as it renders beside the root alone,
	// in the order given, one blank line apart — across every piece's edge.
	It("renders a tree of hundreds of sessions as the sections of each, in order", func() {
		render := func(logs ...*session.Log) string {
			GinkgoHelper()
			text, err := transcript.RenderOrdered(logs)
			Expect(err).NotTo(HaveOccurred())
			return text
		}
		root := newLog(session.Header{ID: "root-id"}).turnStart(1, "user").user("Fan out.").answer("Sent.").turnEnd(session.TurnCompleted, "").log
		kid := func(i int) *session.Log {
			return child(fmt.Sprintf("kid-%d", i), "root-id", fmt.Sprintf("call_%d", i), session.ModeSpawn, 1).
				turnStart(1, "delegation").user(fmt.Sprintf("Task %d.", i)).answer(fmt.Sprintf("Done %d.", i)).turnEnd(session.TurnCompleted, "").log
		}
		alone := render(root)
		for _, n := range []int{62, 63, 64, 65, 127, 128, 129, 700} { // sessions
			logs := []*session.Log{root}
			want := alone
			for i := 1; i < n; i++ {
				k := kid(i)
				logs = append(logs, k)
				section := strings.TrimPrefix(render(root, k), alone+"\n")
				want += "\n" + strings.Replace(section, "== session 1:", fmt.Sprintf("== session %d:", i), 1)
			}
			Expect(render(logs...)).To(Equal(want), "%d sessions", n)
		}
	})

	It("fails, instead of panicking, on a log whose seedLength is past its events", func() {
		root, _, _ := delegationTree()
		root.log.Header.SeedLength = len(root.log.Events) + 1
		_, err := transcript.RenderOrdered([]*session.Log{root.log})
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
	})
})

var _ = Describe("a call under another system prompt or with other tools", func() {
	// session returns a root whose two steps' requests carry the digests.
	session2 := func(system1, tools1, system2, tools2 string) *session.Log {
		b := newLog(session.Header{ID: "root-id"}).turnStart(1, "user").user("Hand off.")
		for _, d := range [][2]string{{system1, tools1}, {system2, tools2}} {
			b.stepStart().event(session.TypeRequestHeader, session.RequestHeaderData{Turn: b.turn, Step: b.step, Provider: "p", Model: "m",
				SystemDigest: d[0], SystemChars: 42, ToolsDigest: d[1], ToolNames: []string{"lookup"}}).
				chunk(1, session.Finish(session.FinishStop)).assistant(session.TextPart("ok")).stepEnd()
		}
		return b.turnEnd(session.TurnCompleted, "").log
	}
	render := func(l *session.Log) string {
		GinkgoHelper()
		text, err := transcript.Render([]*session.Log{l})
		Expect(err).NotTo(HaveOccurred())
		return text
	}

	It("is shown, naming what changed", func() {
		Expect(render(session2("s1", "t1", "s2", "t1"))).To(ContainSubstring("    called with another system prompt (42 characters)\n"))
		Expect(render(session2("s1", "t1", "s1", "t2"))).To(ContainSubstring("    called with other tools (lookup)\n"))
		Expect(render(session2("s1", "t1", "s2", "t2"))).To(ContainSubstring("    called with another system prompt (42 characters) and other tools (lookup)\n"))
	})

	It("is not shown for the same prompt and tools, nor after a first request without a digest", func() {
		Expect(render(session2("s1", "t1", "s1", "t1"))).NotTo(ContainSubstring("called with"))
		Expect(render(session2("", "t1", "s2", "t2"))).NotTo(ContainSubstring("called with"))
	})
})
