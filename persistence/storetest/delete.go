package storetest

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// describeDelete holds a store that is a persistence.Deleter to its
// contract; a store that is not skips these specs.
func describeDelete(s *suite) {
	Describe("delete", func() {
		var d persistence.Deleter
		BeforeEach(func() {
			var ok bool
			if d, ok = s.store.(persistence.Deleter); !ok {
				Skip("the store is no persistence.Deleter")
			}
		})
		deleter := func() persistence.Deleter {
			GinkgoHelper()
			d, ok := s.store.(persistence.Deleter)
			Expect(ok).To(BeTrue())
			return d
		}

		It("removes the named sessions whole and keeps the others, also after a reopen", func() {
			parent := s.parentLog()
			fork := ForkHeader("root", "call_1", 16)
			s.create(fork, parent.Events, CompletedTurn(16, 3, "p", "a"))
			s.create(RootHeader("other"), nil, CompletedTurn(0, 1, "p", "a"))
			Expect(d.Delete(s.ctx, "root", fork.ID)).To(Succeed())
			Expect(s.list()).To(Equal([]string{"other"}))
			_, err := s.store.Load(s.ctx, "root")
			Expect(err).To(MatchError(persistence.ErrUnknownSession))

			s.reopen()
			Expect(s.list()).To(Equal([]string{"other"}))
			Expect(s.load("other").Events).To(HaveLen(8))
		})

		It("deletes nothing when an id is unknown", func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a"))
			Expect(d.Delete(s.ctx, "root", "nope")).To(MatchError(persistence.ErrUnknownSession))
			s.reopen()
			Expect(s.list()).To(Equal([]string{"root"}))
			Expect(s.load("root").Events).To(HaveLen(8))
		})

		It("deletes a session created but never appended to, and lets a deleted id be created again", func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a"))
			Expect(s.store.Create(s.ctx, RootHeader("lazy"), nil)).To(Succeed())
			Expect(d.Delete(s.ctx, "lazy", "root")).To(Succeed())
			Expect(s.list()).To(BeEmpty())
			Expect(s.store.Append(s.ctx, "root", CompletedTurn(8, 2, "p", "a"))).To(MatchError(persistence.ErrUnknownSession))

			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "again", "a"))
			s.reopen()
			l := s.load("root")
			Expect(Encoded(l)).To(Equal(Encoded(&session.Log{Header: RootHeader("root"), Events: CompletedTurn(0, 1, "again", "a")})))
		})

		It("deletes sessions stored before the store was opened", func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a"))
			s.create(RootHeader("keep"), nil, CompletedTurn(0, 1, "p", "a"))
			s.reopen()
			Expect(deleter().Delete(s.ctx, "root")).To(Succeed())
			s.reopen()
			Expect(s.list()).To(Equal([]string{"keep"}))
		})
	})
}
