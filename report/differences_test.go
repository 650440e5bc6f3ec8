package report_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

// replaceEvent swaps the i-th event of log l for a new one of the same seq
// and time, as a hand-edited log would differ.
func replaceEvent(l *session.Log, i int, typ string, v any) {
	GinkgoHelper()
	e, err := session.NewEvent(typ, v)
	Expect(err).NotTo(HaveOccurred())
	e.Seq, e.Time = l.Events[i].Seq, l.Events[i].Time
	l.Events[i] = e
}

// firstOf is the index of the n-th (0-based) event of type typ in l.
func firstOf(l *session.Log, typ string, n int) int {
	GinkgoHelper()
	for i, e := range l.Events {
		if e.Type == typ {
			if n == 0 {
				return i
			}
			n--
		}
	}
	Fail("no such event: " + typ)
	return -1
}

var _ = Describe("every difference between golden and replay is shown", func() {
	It("shows a session whose origin alone differs as a changed header", func() {
		golden, replay := spawnThenFork(variant{}), spawnThenFork(variant{})
		replay[1].Header.Origin = "handoff"
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"session 1 header changed <- first divergence"}))
	})

	It("shows a session whose agent preset alone differs as a changed header", func() {
		golden, replay := spawnThenFork(variant{}), spawnThenFork(variant{})
		replay[1].Header.AgentPreset = "reviewer"
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"session 1 header changed <- first divergence"}))
	})

	It("shows a step whose token usage alone differs as changed", func() {
		golden, replay := spawnThenFork(variant{}), spawnThenFork(variant{})
		spawn := replay[1]
		i := firstOf(spawn, session.TypeAssistantChunk, 0)
		replaceEvent(spawn, i, session.TypeAssistantChunk, &session.ChunkData{Turn: 1, Step: 1, Attempt: 1,
			Chunk: session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 999, OutputTokens: 12}}})
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"session 1 changed: turn 1 step 1 | turn 1 step 1 <- first divergence"}))
	})

	It("marks a session changed in the agent tree when only its inherited prefix differs", func() {
		golden, replay := spawnThenFork(variant{}), spawnThenFork(variant{})
		fork := replay[2]
		i := firstOf(fork, session.TypeUserMessage, 0)
		Expect(i).To(BeNumerically("<", fork.Header.SeedLength))
		replaceEvent(fork, i, session.TypeUserMessage, session.Message{Role: session.RoleUser,
			Content: []session.Part{session.TextPart("a seed edited by hand")}})
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"session 2 seed changed: turn 1 (user) | turn 1 (user) <- first divergence"}))

		sc := failing()
		sc.Recorded, sc.Replayed = golden, replay
		sc.GoldenTranscript, sc.ReplayTranscript = "", ""
		html := render("r", sc)
		Expect(html).To(MatchRegexp(`<a href="#s1-session-2">session 2</a>.*<td class="state">changed</td></tr>`))
		Expect(html).To(ContainSubstring(`<section class="pair p-changed" id="s1-session-2"`))
	})

	It("marks the first divergence in the inherited prefix when the session's own events differ too", func() {
		golden, replay := spawnThenFork(variant{}), spawnThenFork(variant{})
		fork := replay[2]
		replaceEvent(fork, firstOf(fork, session.TypeUserMessage, 0), session.TypeUserMessage, session.Message{Role: session.RoleUser,
			Content: []session.Part{session.TextPart("a seed edited by hand")}})
		replaceEvent(fork, firstOf(fork, session.TypeUserMessage, 1), session.TypeUserMessage, session.Message{Role: session.RoleUser,
			Content: []session.Part{session.TextPart("an own prompt edited by hand")}})
		got := report.AlignRows(golden, replay)
		Expect(firstDivergences(got)).To(Equal([]string{"session 2 seed changed: turn 1 (user) | turn 1 (user) <- first divergence"}))
	})

	It("shows every tool call of a step, also calls the log recorded without an id", func() {
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user").user("go").modelCall(session.FinishToolCalls,
			session.Part{Type: session.PartToolCall, Name: "alpha_tool", Arguments: `{"a":1}`},
			session.Part{Type: session.PartToolCall, Name: "beta_tool", Arguments: `{"b":2}`})
		html := render("r", report.Scenario{Name: "calls", Status: report.StatusPass, Replayed: []*session.Log{l.log}})
		Expect(html).To(ContainSubstring("<b>alpha_tool</b>"))
		Expect(html).To(ContainSubstring("<b>beta_tool</b>"))
		Expect(strings.Count(html, `<div class="it i-call">`)).To(Equal(2))
	})
})
