package recorder_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// olderHeaders removes members from every request/header event of the
// logs in dir, as an agentsnap that did not write them yet recorded them.
func olderHeaders(dir string, names ...string) {
	GinkgoHelper()
	paths, err := filepath.Glob(filepath.Join(dir, "session*.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	for _, p := range paths {
		l, err := session.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		for i := range l.Events {
			if l.Events[i].Type != session.TypeRequestHeader {
				continue
			}
			var m map[string]json.RawMessage
			Expect(json.Unmarshal(l.Events[i].Data, &m)).To(Succeed())
			for _, n := range names {
				Expect(m).To(HaveKey(n), "the spec's premise: %s writes %s", p, n)
				delete(m, n)
			}
			l.Events[i].Data, err = json.Marshal(m)
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(os.WriteFile(p, session.Encode(&l.Header, l.Events), 0o644)).To(Succeed())
	}
}

var _ = Describe("record --only-changed of a recording an older agentsnap wrote", func() {
	It("says which members the recording's events lack and that the logs gain them, not only that its own events differ", func() {
		dir, s := recordedTree()
		olderHeaders(dir, "toolDigests")
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(BeEmpty(), "every call replays")
		lines := res.Reuse.Lines()
		Expect(lines).To(ContainElement(MatchRegexp(`^root: changed though all \d+ of its calls replayed: the log gains "toolDigests" in its request/header events, which the recording lacks \(an older agentsnap made it, or it was edited\)$`)))
		Expect(res.Reuse.Changed).To(HaveLen(3), "every session's log gains the member")
		for _, c := range res.Reuse.Changed {
			Expect(c.Why).To(ContainSubstring(`gains "toolDigests"`), "session %s", c.Session)
		}
	})
})
