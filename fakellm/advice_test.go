package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// A log Prepare refuses is, in a fixture on disk, a stale or hand-edited
// recording: the refusal says to re-record it. A recording made moments
// before by the runtime under test (package conformance) is that
// runtime's fault, and WithAdvice's text says so instead.
var _ = Describe("Prepare's refusal of a log, and WithAdvice", func() {
	const advice = "the runtime under test wrote this moments ago"

	DescribeTable("ends with the fixture's advice, or WithAdvice's text instead",
		func(logs func() []*session.Log, fixtureAdvice string) {
			_, err := fakellm.Prepare(logs())
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(fixtureAdvice))

			_, err = fakellm.Prepare(logs(), fakellm.WithAdvice(advice))
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(HaveSuffix(" — " + advice))
			for _, gone := range []string{"re-record", "agentsnap derive", "DropIncomplete", "a crash while recording", "hand-edited"} {
				Expect(err.Error()).NotTo(ContainSubstring(gone))
			}
		},
		Entry("a call without its finish",
			func() []*session.Log {
				return []*session.Log{rootLog("r").chunks(1, 1, 1, answer("cut")[:2]...).chunks(1, 1, 2, answer("ok")...).log()}
			},
			"(a crash while recording?) — re-record the scenario, or derive with DropIncomplete (agentsnap derive --drop-incomplete) to drop it"),
		Entry("a chunk after its call's finish",
			func() []*session.Log {
				return []*session.Log{rootLog("r").chunks(1, 1, 1, answer("ok")...).chunks(1, 1, 1, answer("more")...).log()}
			},
			"— re-record the scenario (a recording writes chunks as CONTRACT.md describes them)"),
		Entry("a tool/recorded without its arguments",
			func() []*session.Log {
				return []*session.Log{rootLog("r").ev(session.TypeToolRecorded, map[string]string{"callId": "c1", "name": "add"}).log()}
			},
			`has no "arguments" (it needs callId, name, arguments and result: CONTRACT.md 6a) — re-record the scenario`),
		Entry("a fork child's seed cut inside a turn",
			func() []*session.Log {
				parent := rootLog("r").turn(1, "hi", "one").turn(2, "again", "two")
				child := childLog("session.1.jsonl", "r/c", parent, "c1", session.ModeFork).seedFrom(parent)
				child.l.Header.SeedLength--
				return []*session.Log{parent.log(), child.log()}
			},
			"(session.CompletedPrefix) — fix the backend and re-record the scenario"),
	)

	It("ends a log file that does not read with WithAdvice's text too (PrepareFiles)", func() {
		dir := GinkgoT().TempDir()
		path := writeFile(dir, "session.jsonl", "not a log\n")
		_, err := fakellm.PrepareFiles([]string{path})
		Expect(err).To(MatchError(ContainSubstring("; restore the log from version control, or re-record the scenario")))
		_, err = fakellm.PrepareFiles([]string{path}, fakellm.WithAdvice(advice))
		Expect(err).To(MatchError(HaveSuffix("; " + advice)))
		Expect(err.Error()).NotTo(ContainSubstring("re-record"))
	})
})
