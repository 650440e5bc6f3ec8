package fakellm_test

import (
	"bytes"
	"fmt"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a seedLength that does not end at a turn/end", func() {
	// A fork child whose seed is the parent's turn 1 ("OK"), stamped
	// right by seedFrom; each spec moves seedLength to where a broken fork
	// backend would put it.
	var parent *builder
	forkChild := func() *session.Log {
		parent = rootLog("p").turn(1, "remember MARMALADE; say OK", "OK")
		return childLog("session.1.jsonl", "c", parent, "call_1", session.ModeFork).seedFrom(parent).
			turn(2, "what was the codeword?", "MARMALADE").log()
	}
	// firstOf is the index of the first event of type typ with data
	// holding text, from index from on.
	firstOf := func(l *session.Log, from int, typ, text string) int {
		GinkgoHelper()
		for i := from; i < len(l.Events); i++ {
			if l.Events[i].Type == typ && bytes.Contains(l.Events[i].Data, []byte(text)) {
				return i
			}
		}
		Fail(fmt.Sprintf("no %s holding %q", typ, text))
		return -1
	}

	DescribeTable("is refused by Derive and DeriveLog, naming the file, the seq, its type and the fix",
		func(seedLength func(l *session.Log) int, wantType string) {
			l := forkChild()
			n := seedLength(l)
			l.Header.SeedLength = n
			Expect(l.Events[n-1].Type).To(Equal(wantType), "the spec's own premise")
			want := fmt.Sprintf("session.1.jsonl:1: seedLength does not fall between turns: seedLength %d ends the seed at seq %d (%s), not at a turn/end", n, n-1, wantType)

			_, err := fakellm.Derive(bytes.NewReader(session.Encode(&l.Header, l.Events)), l.Path, fakellm.DeriveOptions{})
			Expect(err).To(MatchError(session.ErrSeedBoundary))
			Expect(err.Error()).To(HavePrefix(want))
			Expect(err.Error()).To(ContainSubstring("the fork backend must stamp seedLength at the end of the parent's last completed turn"))
			Expect(err.Error()).To(ContainSubstring("re-record the scenario"))

			_, err = fakellm.DeriveLog(l, fakellm.DeriveOptions{})
			Expect(err).To(MatchError(session.ErrSeedBoundary))
			Expect(err.Error()).To(HavePrefix(want))

			// IgnoreSeed, the regression-test option, derives the whole
			// log and does not look at the boundary.
			s, err := deriveBoth(l, fakellm.DeriveOptions{IgnoreSeed: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(texts(s.Entries)).To(Equal([]string{"OK", "MARMALADE"}))
		},
		Entry("inside the inherited model call, mid-answer",
			func(l *session.Log) int { return firstOf(l, 0, session.TypeAssistantChunk, `"text-delta"`) + 1 }, session.TypeAssistantChunk),
		Entry("at the step/end just before the turn/end",
			func(l *session.Log) int { return l.Header.SeedLength - 1 }, session.TypeStepEnd),
		Entry("one past the turn/end, on the child's own turn/start",
			func(l *session.Log) int { return l.Header.SeedLength + 1 }, session.TypeTurnStart),
		Entry("inside the child's own model call",
			func(l *session.Log) int {
				return firstOf(l, l.Header.SeedLength, session.TypeAssistantChunk, `"text-delta"`) + 1
			}, session.TypeAssistantChunk),
		Entry("at the log's last event, when it is not a turn/end",
			func(l *session.Log) int {
				l.Events = l.Events[:len(l.Events)-1] // the child's turn/end
				return len(l.Events)
			}, session.TypeStepEnd),
	)

	It("is named by session in a log that has no file", func() {
		l := forkChild()
		l.Path = ""
		l.Header.SeedLength--
		_, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		Expect(err).To(MatchError(session.ErrSeedBoundary))
		Expect(err.Error()).To(HavePrefix("fakellm: derive session c: seedLength does not fall between turns"))
	})

	It("stops Load, naming the child's file", func() {
		l := forkChild()
		l.Header.SeedLength--
		dir := writeFixture(parent.log(), l)
		_, err := loadDir(dir)
		Expect(err).To(MatchError(session.ErrSeedBoundary))
		Expect(err.Error()).To(HavePrefix(filepath.Join(dir, "session.1.jsonl") + ":1: "))
	})

	It("is no problem at a turn/end: the whole log as seed leaves an empty script", func() {
		l := forkChild()
		l.Header.SeedLength = len(l.Events)
		s, err := deriveBoth(l, fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Entries).To(BeEmpty())
	})
})
