package session_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("the session log contract at its edges", func() {
	DescribeTable("a header is refused, naming the file and line 1, when",
		func(content string, message string) {
			path := writeLog(GinkgoT().TempDir(), "bad.jsonl", content)
			before := stateOf(path)
			l, err := session.ReadFile(path)
			Expect(l).To(BeNil())
			Expect(err).To(MatchError(HavePrefix(path + ":1: ")))
			Expect(errors.Is(err, session.ErrNotHeader)).To(BeTrue())
			Expect(err.Error()).To(ContainSubstring(message))
			Expect(stateOf(path)).To(Equal(before), "reading must not write")
		},
		Entry("its version is negative", lines(`{"type":"session","version":-1,"id":"s","createdAt":1}`),
			"session header has version -1; this reader understands version 0 only"),
		Entry("it has no createdAt", lines(`{"type":"session","version":0,"id":"s"}`),
			`session header has no "createdAt"`),
	)

	It("never panics on a hand-built log whose seedLength is negative or past the end, and clamps it", func() {
		events := []session.Event{{Type: "turn/start", Seq: 0}, {Type: "user/message", Seq: 1}, {Type: "turn/end", Seq: 2}}
		neg := &session.Log{Header: session.Header{ID: "s", SeedLength: -1}, Events: events}
		Expect(neg.Seed()).To(BeEmpty())
		Expect(neg.Own()).To(Equal(events))
		past := &session.Log{Header: session.Header{ID: "s", SeedLength: 9}, Events: events}
		Expect(past.Seed()).To(Equal(events))
		Expect(past.Own()).To(BeEmpty())
	})
})
