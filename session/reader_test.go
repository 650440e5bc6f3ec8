package session_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("reading edges", func() {
	It("names the file and line 1 when ReadHeader refuses a header", func() {
		path := writeLog(GinkgoT().TempDir(), "bad.jsonl", lines(`{"type":"session","version":3,"id":"s","createdAt":1}`))
		_, err := session.ReadHeader(path)
		Expect(err).To(MatchError(HavePrefix(path + ":1: ")))
		Expect(errors.Is(err, session.ErrNotHeader)).To(BeTrue())
	})
})
