package report_test

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

func render(title string, scenarios ...report.Scenario) string {
	GinkgoHelper()
	var b bytes.Buffer
	Expect(report.Write(&b, title, scenarios)).To(Succeed())
	return b.String()
}

// ownTokens sums the usage chunks of the sessions' own events: what the
// page must show as the tree's total.
func ownTokens(logs []*session.Log) (in, out int) {
	for _, l := range logs {
		for _, e := range l.Own() {
			if e.Type != session.TypeAssistantChunk {
				continue
			}
			d, err := session.DecodeChunkData(e.Data)
			if err == nil && d.Chunk.Usage != nil {
				in += d.Chunk.Usage.InputTokens
				out += d.Chunk.Usage.OutputTokens
			}
		}
	}
	return in, out
}

var hrefs = regexp.MustCompile(`href="([^"]*)"`)

var _ = Describe("Write", func() {
	It("writes one self-contained page that refers to nothing outside it", func() {
		html := render("agentsnap report", failing(), passing())
		Expect(html).To(HavePrefix("<!DOCTYPE html>"))
		for _, ref := range []string{"http://", "https://", "<link", "src=", "url(", "@import", "<iframe", "<object", "<embed"} {
			Expect(html).NotTo(ContainSubstring(ref))
		}
		Expect(html).NotTo(ContainSubstring("ZgotmplZ"), "html/template rejected no value")
		Expect(html).To(ContainSubstring("<style>/* agentsnap report."), "the styles are inline")
		Expect(strings.Count(html, "<script")).To(Equal(1), "one inline script, no other")
		Expect(html).To(ContainSubstring(`<script>// agentsnap report:`))
		for _, m := range hrefs.FindAllStringSubmatch(html, -1) {
			Expect(m[1]).To(HavePrefix("#"), "every link stays in the page")
		}
	})

	It("shows a URL in a log as text, never as a link or a resource", func() {
		sc := failing()
		sc.Problems = append(sc.Problems, `see <img src="https://example.com/t.png">`)
		sc.Replayed = spawnThenFork(variant{answer: "fetched https://example.com/a.png"})
		html := render("r", sc)
		Expect(html).To(ContainSubstring("fetched https://example.com/a.png"))
		Expect(html).To(ContainSubstring(`see &lt;img src=&#34;https://example.com/t.png&#34;&gt;`))
		Expect(html).NotTo(ContainSubstring("<img"))
		for _, m := range hrefs.FindAllStringSubmatch(html, -1) {
			Expect(m[1]).To(HavePrefix("#"))
		}
	})

	It("escapes every text it shows, in text and in attributes", func() {
		sc := failing()
		sc.Name = `<b>name</b>`
		sc.Dir = `fixtures/"dir"`
		sc.Status = `<i>odd</i>`
		sc.Problems = []string{`</li><script>alert("problem")</script>`}
		sc.FixCommand = `agentsnap record 'a' && rm -rf <dir>`
		sc.Replayed = spawnThenFork(variant{userText: `<script>alert('user')</script> & "quoted"`})
		sc.Replayed[1].Header.Mode = `spawn" onmouseover="alert(1)`
		html := render(`<title>x</title>`, sc)

		Expect(strings.Count(html, "<script")).To(Equal(1))
		Expect(html).NotTo(ContainSubstring("<b>name"))
		Expect(html).NotTo(ContainSubstring("<i>odd"))
		Expect(html).NotTo(ContainSubstring(`onmouseover="alert`))
		Expect(html).To(ContainSubstring("<title>&lt;title&gt;x&lt;/title&gt;</title>"))
		Expect(html).To(ContainSubstring("&lt;b&gt;name&lt;/b&gt;"))
		Expect(html).To(ContainSubstring("fixtures/&#34;dir&#34;"))
		Expect(html).To(ContainSubstring("&lt;/li&gt;&lt;script&gt;alert(&#34;problem&#34;)&lt;/script&gt;"))
		Expect(html).To(ContainSubstring("agentsnap record &#39;a&#39; &amp;&amp; rm -rf &lt;dir&gt;"))
		Expect(html).To(ContainSubstring("&lt;script&gt;alert(&#39;user&#39;)&lt;/script&gt; &amp; &#34;quoted&#34;"))
		Expect(html).To(ContainSubstring(`class="badge st-unknown">&lt;i&gt;odd&lt;/i&gt;</span>`))
	})

	It("sums up the statuses at the top and links every scenario", func() {
		pending := passing()
		pending.Name, pending.Status = "spawn/one-child", report.StatusPending
		broken := report.Scenario{Name: "fork/broken", Status: report.StatusError,
			Problems: []string{"harness: fixtures/fork/broken/session.jsonl:3: broken JSON\nmore detail"}}
		html := render("agentsnap report", failing(), passing(), pending, broken)

		Expect(html).To(ContainSubstring(`4 scenarios: <span class="badge st-fail">1 fail</span> <span class="badge st-pending">1 pending</span> <span class="badge st-error">1 error</span> <span class="badge st-pass">1 pass</span>`))
		for i, name := range []string{"mixed/spawn-then-fork", "mixed/spawn-then-fork-ok", "spawn/one-child", "fork/broken"} {
			Expect(html).To(ContainSubstring(fmt.Sprintf(`<a href="#s%d">%s</a>`, i+1, name)))
		}
		Expect(html).To(ContainSubstring(`<td class="fp">harness: fixtures/fork/broken/session.jsonl:3: broken JSON</td>`))
	})

	It("expands the scenarios that need attention and collapses the passing ones", func() {
		broken := report.Scenario{Name: "fork/broken", Status: report.StatusError, Problems: []string{"no logs"}}
		html := render("r", failing(), passing(), broken)
		Expect(html).To(ContainSubstring(`<details class="scenario st-fail" id="s1" open>`))
		Expect(html).To(ContainSubstring(`<details class="scenario st-pass" id="s2">`))
		Expect(html).To(ContainSubstring(`<details class="scenario st-error" id="s3" open>`))
		Expect(html).To(ContainSubstring(`<li>no logs</li>`))
	})

	It("shows the agent tree with lineage and collapses a fork child's inherited prefix", func() {
		sc := passing()
		fork := sc.Replayed[2]
		html := render("r", sc)
		Expect(html).To(MatchRegexp(`<section class="session" id="s1-root">(?s:.)*<div class="children">(?s:.)*<section class="session" id="s1-session-1">(?s:.)*<section class="session" id="s1-session-2">`),
			"children are nested inside the root")
		Expect(html).To(ContainSubstring(`<span class="slabel">session 2</span> <span class="mode m-fork">fork</span> <span class="meta">of root via <code>call_recall</code></span>`))
		Expect(html).To(ContainSubstring(fmt.Sprintf("depth 1 · seedLength %d · %d events", fork.Header.SeedLength, len(fork.Events))))
		Expect(html).To(ContainSubstring(fmt.Sprintf(`<details class="seed"><summary>inherited from root: %d events, turn 1</summary>`, fork.Header.SeedLength)))
		Expect(html).To(ContainSubstring(`<a class="child" href="#s1-session-2">→ session 2 (fork)</a>`), "the call links to the child it created")
	})

	It("shows every call's tokens and the tree's total", func() {
		sc := passing()
		in, out := ownTokens(sc.Replayed)
		html := render("r", sc)
		Expect(html).To(ContainSubstring(fmt.Sprintf("tree total (replay): 3 sessions · 6 model calls · tokens in %d · out %d", in, out)))
		Expect(html).To(ContainSubstring(`<div class="bt">step 1 <span class="use">in 65 · out 12</span></div>`))
	})

	It("marks the first divergence once, where it is, and links to it from the summary", func() {
		html := render("r", passing(), failing())
		Expect(strings.Count(html, `id="s2-first-divergence"`)).To(Equal(1))
		Expect(html).To(ContainSubstring(`<div class="row r-added divergence" id="s2-first-divergence"><div class="divmark">first divergence</div>`))
		Expect(strings.Count(html, " divergence\"")).To(Equal(1), "one element carries the class")
		Expect(html).To(ContainSubstring(`<a class="jump" href="#s2-first-divergence">first divergence</a>`))
		Expect(html).NotTo(ContainSubstring("s1-first-divergence"))
	})

	It("makes a transcript change the divergence of a scenario whose logs match", func() {
		sc := passing()
		sc.Status = report.StatusPending
		sc.GoldenTranscript = "== root ==\nturn 1 (user)\n  user: hi\n"
		sc.ReplayTranscript = "== root ==\nturn 1 (user)\n  user: <hello>\n"
		html := render("r", sc)
		Expect(html).To(ContainSubstring(`<details class="transcript" open>`))
		Expect(html).To(ContainSubstring(`<div class="ln r-changed divergence" id="s1-first-divergence"><span class="no">3</span><pre>  user: hi</pre><span class="no">3</span><pre>  user: &lt;hello&gt;</pre></div>`))
	})

	It("writes the same bytes for the same scenarios", func() {
		Expect(render("r", failing(), passing())).To(Equal(render("r", failing(), passing())))
	})

	It("returns the writer's error", func() {
		err := report.Write(failingWriter{}, "r", []report.Scenario{failing()})
		Expect(err).To(MatchError(ContainSubstring("report: writing the page: disk full")))
		Expect(errors.Is(err, errDiskFull)).To(BeTrue())
	})
})

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }
