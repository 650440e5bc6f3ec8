package persistence_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("ValidateHeader on delegationDepth", func() {
	// A store refuses what a reader refuses: a header it could not read back.
	It("passes 0 to MaxDelegationDepth, as the reader does, and refuses one more or a negative one", func() {
		for _, c := range []struct {
			depth int
			ok    bool
		}{{0, true}, {session.MaxDelegationDepth, true}, {session.MaxDelegationDepth + 1, false}, {-1, false}} {
			h := session.Header{ID: "s", DelegationDepth: c.depth}
			_, readErr := session.Read(strings.NewReader(string(session.Encode(&h, nil))), "x")
			Expect(readErr == nil).To(Equal(c.ok), "depth %d", c.depth)
			err := persistence.ValidateHeader(&h)
			if c.ok {
				Expect(err).NotTo(HaveOccurred())
				continue
			}
			Expect(err).To(MatchError(persistence.ErrInvalid))
			Expect(err).To(MatchError(ContainSubstring("header has delegationDepth %d; it must be 0 to 64", c.depth)))
		}
	})
})
