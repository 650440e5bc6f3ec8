package session_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a log that starts with a byte order mark", func() {
	It("says so, since an editor shows nothing there", func() {
		path := writeLog(GinkgoT().TempDir(), "session.jsonl", "\uFEFF"+lines(`{"type":"session","version":0,"id":"root","createdAt":1}`))
		_, err := session.ReadFile(path)
		Expect(err).To(MatchError(HavePrefix(path + ":1: bad session header: ")))
		Expect(err).To(MatchError(ContainSubstring("(the file starts with a UTF-8 byte order mark, which an editor added; remove it)")))
	})
})
