package judge_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A transcript that differs in a replay that does not match its recording
// cannot be fixed with an update, which writes goldens only from a replay
// that matched: the message ends with the re-recording instead.
var _ = Describe("comparing with a golden when the replay does not match its recording", func() {
	failing := func(golden string) *judge.Outcome {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, fixture.GoldenFile)
		if golden != "" {
			Expect(os.WriteFile(path, []byte(golden), 0o644)).To(Succeed())
		}
		return &judge.Outcome{
			Fixture: &fixture.Fixture{Name: "t/drifted", Dir: dir, Golden: path, Scenario: &scenario.Scenario{
				Recorded: &scenario.Recorded{Provider: "playbook", Runtime: "my-agent"}}},
			Differences: []judge.Difference{{Session: "root", Lineage: "root session", Seq: 19, Type: "tool/result",
				Field: "data.text", Golden: `"old"`, Replay: `"new"`}},
			Transcript: "== root ==\nresult call_t: new\n",
		}
	}

	DescribeTable("names the re-recording, not an update that would refuse",
		func(golden string) {
			o := failing(golden)
			res := judge.CompareGolden(o)
			Expect(res.Message).NotTo(ContainSubstring("--update"), res.Message)
			Expect(res.Message).NotTo(ContainSubstring("update the golden with"), res.Message)
			Expect(res.Message).To(ContainSubstring("no golden proposal written: the replay itself does not match its recording"))
			Expect(res.Message).To(HaveSuffix("If the change is intended, re-record the scenario:\n  " + judge.RecordCommand(o)))
			Expect(o.Fixture.Golden + judge.ProposalSuffix).NotTo(BeAnExistingFile())
		},
		Entry("a golden that differs", "== root ==\nresult call_t: old\n"),
		Entry("a golden that is missing", ""),
	)
})

// A golden that is there but cannot be read is not missing: the update a
// missing golden suggests would fail on a folder, and review could not
// replace it either.
var _ = Describe("comparing with a golden that is a folder", func() {
	It("says it cannot be read, what to do, and proposes nothing", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		golden := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.Mkdir(golden, 0o755)).To(Succeed())
		o := &judge.Outcome{
			Fixture:    &fixture.Fixture{Name: "t/folder", Dir: dir, Golden: golden, Scenario: &scenario.Scenario{}},
			Transcript: "== root ==\n",
		}
		res := judge.CompareGolden(o)
		Expect(res.Message).To(HavePrefix("t/folder: " + golden + " cannot be read: it is a folder, not a file; restore it from version control (or make it readable), or move it away and create it from the replay with:\n  go tool agentsnap check --update " + dir))
		Expect(res.Message).NotTo(ContainSubstring("is missing"))
		Expect(res.Pending).To(BeEmpty())
		Expect(golden + judge.ProposalSuffix).NotTo(BeAnExistingFile())

		By("an update naming the folder in its way")
		res = judge.UpdateGolden(o)
		Expect(res.Message).To(HavePrefix("judge: updating " + golden + ": "))
		Expect(res.Message).To(HaveSuffix("(it is a folder, not a file): move it away, then update again"))
	})

	It("names the re-recording when the replay does not match its recording", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		golden := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.Mkdir(golden, 0o755)).To(Succeed())
		o := &judge.Outcome{
			Fixture: &fixture.Fixture{Name: "t/folder", Dir: dir, Golden: golden, Scenario: &scenario.Scenario{
				Recorded: &scenario.Recorded{Provider: "playbook", Runtime: "my-agent"}}},
			Differences: []judge.Difference{{Session: "root", Lineage: "root session", Seq: 3, Type: "tool/result",
				Field: "data.text", Golden: `"old"`, Replay: `"new"`}},
			Transcript: "== root ==\n",
		}
		res := judge.CompareGolden(o)
		Expect(res.Message).To(HavePrefix("t/folder: " + golden + " cannot be read: it is a folder, not a file; "))
		Expect(res.Message).To(ContainSubstring("move it away and re-record the scenario (the replay itself does not match its recording"))
		Expect(res.Message).To(ContainSubstring("\n  " + judge.RecordCommand(o) + "\n"))
		Expect(res.Message).NotTo(ContainSubstring("--update"), res.Message)
		Expect(golden + judge.ProposalSuffix).NotTo(BeAnExistingFile())
	})
})

// A golden that differs from the transcript only in bytes a diff does not
// show — CRLF line endings, a byte order mark — says so, or the diff's
// lines look the same on both sides.
var _ = Describe("comparing with a golden that differs only invisibly", func() {
	compare := func(golden string) string {
		GinkgoHelper()
		GinkgoT().Setenv("CI", "true") // no proposal: only the message matters here
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, fixture.GoldenFile)
		Expect(os.WriteFile(path, []byte(golden), 0o644)).To(Succeed())
		o := &judge.Outcome{
			Fixture:    &fixture.Fixture{Name: "t/invisible", Dir: dir, Golden: path, Scenario: &scenario.Scenario{}},
			Transcript: "== root ==\nturn 1 (user)\n",
		}
		return judge.CompareGolden(o).Message
	}

	It("names CRLF line endings and how to keep goldens in LF", func() {
		msg := compare("== root ==\r\nturn 1 (user)\r\n")
		Expect(msg).To(HavePrefix("t/invisible: the transcript differs from "))
		Expect(msg).To(ContainSubstring(" only where the diff cannot show it: its lines end in CRLF, the transcript's in LF"))
		Expect(msg).To(ContainSubstring(`add "*.golden text eol=lf" to .gitattributes`))
	})

	It("names a byte order mark", func() {
		msg := compare("\uFEFF== root ==\nturn 1 (user)\n")
		Expect(msg).To(ContainSubstring(" only where the diff cannot show it: it starts with a byte order mark (U+FEFF) an editor added (remove it)"))
	})

	It("says nothing more when the text differs too", func() {
		msg := compare("== root ==\r\nturn 2 (user)\r\n")
		Expect(msg).NotTo(ContainSubstring("cannot show"))
	})
})

// An update writes what the replay rendered; a session of the golden the
// replay lacks goes with it, which review --accept refuses without
// --force: the update says so.
var _ = Describe("an update that removes a session of the golden", func() {
	It("warns, naming the session and the golden", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, fixture.GoldenFile)
		root := "== root ==\nturn 1 (user)\n  user: hi\n"
		Expect(os.WriteFile(path, []byte(root+"\n== session 1: spawn of root via call_a, depth 1 ==\nturn 1 (subagent)\n  user: a\n"), 0o644)).To(Succeed())
		o := &judge.Outcome{
			Fixture:    &fixture.Fixture{Name: "spawn/x", Dir: dir, Golden: path, Scenario: &scenario.Scenario{}},
			Transcript: root,
		}
		res := judge.UpdateGolden(o)
		Expect(res.Message).To(BeEmpty())
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(Equal([]string{"session 1: spawn of root via call_a, depth 1: the session is in the golden but not in the replay: the agent no longer starts it, and the update removed it from " + path +
			" (agentsnap review --accept does that only with --force); if the agent should still start it, restore the golden from version control and fix the agent"}))

		By("and says nothing when every session stays")
		Expect(os.WriteFile(path, []byte("== root ==\nturn 1 (user)\n  user: hello\n"), 0o644)).To(Succeed())
		res = judge.UpdateGolden(o)
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(BeEmpty())

		By("nor when the child's creating call got another id, as a live model mints on every recording")
		child := func(id string) string {
			return "\n== session 1: spawn of root via " + id + ", depth 1 ==\nturn 1 (subagent)\n  user: a\n" +
				"\n== session 2: spawn of session 1 via " + id + "_b, depth 2 ==\nturn 1 (subagent)\n  user: b\n"
		}
		Expect(os.WriteFile(path, []byte(root+child("call_a")), 0o644)).To(Succeed())
		o.Transcript = root + child("call_Q7x")
		res = judge.UpdateGolden(o)
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(BeEmpty(), "the same sessions, renamed: none was dropped")

		By("and a renamed child is paired with one of its own mode: the spawn the agent dropped is named, not the fork it kept")
		spawn := "\n== session 1: spawn of root via call_a, depth 1 ==\nturn 1 (subagent)\n  user: a\n"
		Expect(os.WriteFile(path, []byte(root+spawn+"\n== session 2: fork of root via call_b, depth 1 ==\nturn 2 (subagent)\n  user: b\n"), 0o644)).To(Succeed())
		o.Transcript = root + "\n== session 1: fork of root via call_R2, depth 1 ==\nturn 2 (subagent)\n  user: b\n"
		res = judge.UpdateGolden(o)
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(HaveExactElements(HavePrefix("session 1: spawn of root via call_a, depth 1: the session is in the golden but not in the replay")))

		By("and a renamed child left with none of its mode is the child whose mode changed, not one dropped and one added")
		Expect(os.WriteFile(path, []byte(root+spawn), 0o644)).To(Succeed())
		o.Transcript = root + "\n== session 1: fork of root via call_R3, depth 1 ==\nturn 1 (subagent)\n  user: a\n"
		res = judge.UpdateGolden(o)
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(HaveExactElements(HavePrefix(`session 1: spawn of root via call_a, depth 1: the child was a spawn and the replay makes it a fork ("== session 1: fork of root via call_R3, depth 1 ==")`)))
	})
})

// review --accept refuses without --force a proposal that changes how a
// child is created; an update writes it, and says so as review does.
var _ = Describe("an update that changes a child's mode or its fork seed", func() {
	It("warns of each, naming the session, both values and the golden", func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, fixture.GoldenFile)
		root := "== root ==\nturn 1 (user)\n  user: hi\n\n"
		fork := "== session 1: fork of root via call_a, depth 1 ==\n(inherits 12 events from root: turn 1)\nturn 1 (subagent)\n  user: a\n"
		Expect(os.WriteFile(path, []byte(root+fork), 0o644)).To(Succeed())
		o := &judge.Outcome{
			Fixture:    &fixture.Fixture{Name: "fork/x", Dir: dir, Golden: path, Scenario: &scenario.Scenario{}},
			Transcript: root + "== session 1: spawn of root via call_a, depth 1 ==\nturn 1 (subagent)\n  user: a\n",
		}
		res := judge.UpdateGolden(o)
		Expect(res.Message).To(BeEmpty())
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(Equal([]string{
			`session 1: fork of root via call_a, depth 1: the child was a fork and the replay makes it a spawn ("== session 1: spawn of root via call_a, depth 1 =="); the update wrote that to ` + path +
				" (agentsnap review --accept does that only with --force); if it should still be a fork, restore the golden from version control and fix the agent",
			`session 1: fork of root via call_a, depth 1: the fork seed changed from "(inherits 12 events from root: turn 1)" to no inherited prefix; the update wrote that to ` + path +
				" (agentsnap review --accept does that only with --force); if the child should still inherit what it did, restore the golden from version control and fix the agent",
		}))

		By("a fork seed alone")
		Expect(os.WriteFile(path, []byte(root+fork), 0o644)).To(Succeed())
		o.Transcript = root + strings.Replace(fork, "12 events from root: turn 1", "20 events from root: turns 1, 2", 1)
		res = judge.UpdateGolden(o)
		Expect(res.Warnings).To(Equal([]string{`session 1: fork of root via call_a, depth 1: the fork seed changed from "(inherits 12 events from root: turn 1)" to "(inherits 20 events from root: turns 1, 2)"; the update wrote that to ` + path +
			" (agentsnap review --accept does that only with --force); if the child should still inherit what it did, restore the golden from version control and fix the agent"}))

		By("and nothing when only what a child says changes, or how many events its inherited turns are (a live re-recording streams them otherwise)")
		Expect(os.WriteFile(path, []byte(root+fork), 0o644)).To(Succeed())
		o.Transcript = root + strings.Replace(fork, "12 events", "14 events", 1) + "  assistant: done\n"
		res = judge.UpdateGolden(o)
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(BeEmpty())

		By("nor when a child added before it renumbers the parent a fork inherits from (its seed names the parent by number)")
		spawn := "== session 1: spawn of root via call_p, depth 1 ==\nturn 1 (subagent)\n  user: p\n\n"
		grandchild := func(label, parent string) string {
			return "== " + label + ": fork of " + parent + " via call_g, depth 2 ==\n(inherits 12 events from " + parent + ": turn 1)\nturn 1 (subagent)\n  user: g\n"
		}
		Expect(os.WriteFile(path, []byte(root+spawn+grandchild("session 2", "session 1")), 0o644)).To(Succeed())
		added := "== session 1: spawn of root via call_new, depth 1 ==\nturn 1 (subagent)\n  user: new\n\n"
		o.Transcript = root + added + strings.Replace(spawn, "session 1:", "session 2:", 1) + grandchild("session 3", "session 2")
		res = judge.UpdateGolden(o)
		Expect(res.Updated).To(BeTrue())
		Expect(res.Warnings).To(BeEmpty(), "the grandchild inherits turn 1 of the same parent, now session 2")
	})
})
