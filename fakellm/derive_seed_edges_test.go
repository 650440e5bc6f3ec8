package fakellm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// A log in memory (DeriveLog: a store's, a derivation's) whose header's
// seedLength lies past its events: a log cut short, or a fork backend that
// stamped the wrong length.
var _ = Describe("DeriveLog of a log whose seedLength is past its end", func() {
	forkChild := func() *session.Log {
		parent := rootLog("p").turn(1, "remember MARMALADE; say OK", "OK")
		l := childLog("session.1.jsonl", "c", parent, "call_1", session.ModeFork).seedFrom(parent).
			turn(2, "what was the codeword?", "MARMALADE").log()
		l.Header.SeedLength = len(l.Events) + 3
		return l
	}

	It("names the file, the session, the seedLength, the log's length and what to do", func() {
		l := forkChild()
		_, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
		Expect(err.Error()).To(HavePrefix("session.1.jsonl:1: seedLength is past the end of the log: "))
		Expect(err.Error()).To(ContainSubstring("seedLength is %d but the log of session c holds %d events", len(l.Events)+3, len(l.Events)))
		Expect(err.Error()).To(ContainSubstring("restore it from version control"))
		Expect(err.Error()).To(ContainSubstring("fix the backend and re-record the scenario"))
	})

	It("is named by session in a log that has no file", func() {
		l := forkChild()
		l.Path = ""
		_, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
		Expect(err.Error()).To(HavePrefix("fakellm: derive session c: seedLength is past the end of the log: "))
		Expect(err.Error()).To(HaveSuffix(" — fix the backend and re-record the scenario"))
	})
})
