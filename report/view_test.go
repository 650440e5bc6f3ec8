package report_test

import (
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

// toolStep is a step whose tool result carries isError as given.
func toolStep(b *builder, id, result string, isError bool) *builder {
	b.modelCall(session.FinishToolCalls, session.Part{Type: session.PartToolCall, ID: id, Name: "read_file", Arguments: `{}`})
	b.event(session.TypeToolResult, session.ToolResultData{Turn: b.turn, Step: b.step, Message: session.Message{
		Role: session.RoleTool,
		Content: []session.Part{{Type: session.PartToolResult, ToolCallID: id, IsError: isError,
			Content: []session.Part{session.TextPart(result)}}},
	}})
	return b.event(session.TypeStepEnd, session.StepData{Turn: b.turn, Step: b.step})
}

func single(l *builder) string {
	GinkgoHelper()
	return render("r", report.Scenario{Name: "one", Status: report.StatusPass, Replayed: []*session.Log{l.log}})
}

var ids = regexp.MustCompile(` id="([^"]*)"`)

var _ = Describe("what the page shows of a session", func() {
	It("shows a tool result that failed as an error, and one that did not as a result", func() {
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user").user("go")
		toolStep(l, "c1", "no such file", true)
		toolStep(l, "c2", "contents", false)
		html := single(l)
		Expect(html).To(MatchRegexp(`<div class="it i-error"><span class="tag">result \(error\)</span>.*\n?.*<pre>no such file</pre>`))
		Expect(html).To(MatchRegexp(`<div class="it i-result"><span class="tag">result</span>.*\n?.*<pre>contents</pre>`))
	})

	It("shows a text of exactly the cap whole, and cuts a longer one at a character boundary", func() {
		exact := strings.Repeat("x", 8000)
		long := strings.Repeat("é", 5000)      // 10000 bytes; byte 8000 starts a character
		odd := "a" + strings.Repeat("é", 5000) // byte 8000 is inside a character
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user").user(exact).answer(long).turnEnd().turnStart(2, "user").user(odd)
		html := single(l)
		Expect(html).To(ContainSubstring("<pre>" + exact + "</pre>"))
		Expect(html).To(ContainSubstring("<pre>" + strings.Repeat("é", 4000) + "\n… (2000 more bytes not shown)</pre>"))
		Expect(html).To(ContainSubstring("<pre>a" + strings.Repeat("é", 3999) + "\n… (2002 more bytes not shown)</pre>"))
	})

	It("shows the model of a request once when the provider has the same name", func() {
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user").user("go").answer("ok")
		html := single(l)
		Expect(html).To(ContainSubstring("<pre>playbook · 1 messages · 3 tools · system 5b30ab12</pre>"))
	})

	It("shows the cache tokens a call read, however few", func() {
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user").user("go")
		l.event(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
		l.event(session.TypeAssistantChunk, &session.ChunkData{Turn: 1, Step: 1, Attempt: 1,
			Chunk: session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: ptr(1)}}})
		html := single(l)
		Expect(html).To(ContainSubstring("in 10 · out 2 · cache 1"))
	})

	It("shows events after a turn's end in a block of their own, not in the ended turn", func() {
		l := newLog(session.Header{ID: "root"})
		l.turnStart(1, "user").user("go").answer("ok").turnEnd()
		l.event("custom/note", map[string]string{"note": "after the end"})
		html := single(l)
		Expect(html).To(MatchRegexp(`<div class="blk k-end">\s*<div class="bt">ended completed</div>\s*</div>`))
		Expect(html).To(MatchRegexp(`<div class="blk k-other">\s*<div class="bt">events</div>\s*<div class="it i-event">`))
	})

	It("gives every session of a compared run its own anchor, also one only the golden has", func() {
		golden := spawnThenFork(variant{})
		replay := spawnThenFork(variant{})
		replay = []*session.Log{replay[0], replay[2]} // the spawn child is gone: the fork is "session 1" now
		sc := failing()
		sc.Recorded, sc.Replayed = golden, replay
		html := render("r", sc)
		seen := map[string]bool{}
		for _, m := range ids.FindAllStringSubmatch(html, -1) {
			Expect(seen[m[1]]).To(BeFalse(), fmt.Sprintf("id %q is used twice", m[1]))
			seen[m[1]] = true
		}
		Expect(seen).To(HaveKey("s1-session-1-golden"))
	})

	It("marks an inserted transcript line as the first divergence", func() {
		sc := passing()
		sc.Status = report.StatusPending
		sc.GoldenTranscript = "a\nb\n"
		sc.ReplayTranscript = "a\nnew\nb\n"
		html := render("r", sc)
		Expect(html).To(ContainSubstring(`<div class="ln r-added divergence" id="s1-first-divergence">`))
	})
})

var _ = Describe("alignment of blocks that match nothing", func() {
	It("keeps a turn's step and its end apart: a step stands alone rather than pair with the other run's turn end", func() {
		g := newLog(session.Header{ID: "root"})
		g.turnStart(1, "user").user("go").answer("ok").turnEnd()
		r := newLog(session.Header{ID: "root"})
		r.turnStart(1, "user").user("go")
		r.event(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnError, Message: "boom"}})
		Expect(report.AlignRows([]*session.Log{g.log}, []*session.Log{r.log})).To(Equal([]string{
			"root same: turn 1 (user) | turn 1 (user)",
			"root removed: turn 1 step 1 | - <- first divergence",
			"root changed: turn 1 ended completed | turn 1 ended error",
		}))
	})

	It("shows a step that took a retry as changed even when it said the same", func() {
		step := func(retry bool) *session.Log {
			b := newLog(session.Header{ID: "root"})
			b.turnStart(1, "user").user("go")
			b.event(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
			b.event(session.TypeAssistantChunk, &session.ChunkData{Turn: 1, Step: 1, Chunk: session.Finish(session.FinishStop)})
			if retry {
				b.event(session.TypeAssistantChunk, &session.ChunkData{Turn: 1, Step: 1, Chunk: session.Finish(session.FinishStop)})
			}
			b.event(session.TypeAssistantMessage, session.AssistantMessageData{Turn: 1, Step: 1,
				Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("ok")}}})
			return b.log
		}
		got := report.AlignRows([]*session.Log{step(false)}, []*session.Log{step(true)})
		Expect(firstDivergences(got)).To(Equal([]string{"root changed: turn 1 step 1 | turn 1 step 1 <- first divergence"}))
	})
})

func ptr(n int) *int { return &n }

var _ = Describe("notes about logs that are not one tree", func() {
	It("escape the session ids the logs hold", func() {
		root := newLog(session.Header{ID: "root"})
		root.turnStart(1, "user").user("go").answer("ok").turnEnd()
		orphan := newLog(session.Header{ID: `<script>alert("id")</script>`, ParentSession: `<img src=x onerror=alert(1)>`, ParentCallID: "c1"})
		orphan.turnStart(1, "subagent").user("hi").answer("ok").turnEnd()
		html := render("r", report.Scenario{Name: "broken", Status: report.StatusFail,
			Recorded: []*session.Log{root.log}, Replayed: []*session.Log{root.log, orphan.log}})
		Expect(strings.Count(html, "<script")).To(Equal(1))
		Expect(html).NotTo(ContainSubstring("<img"))
		Expect(html).To(ContainSubstring(`<p class="note">replay: report: logs do not form one session tree: session &lt;script&gt;alert(&#34;id&#34;)&lt;/script&gt; names parent &lt;img src=x onerror=alert(1)&gt;, which is not among the logs; sessions are shown in the order given</p>`))
	})
})
