package storetest

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

func describeOrdering(s *suite) {
	Describe("append order and validation", func() {
		BeforeEach(func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "say OK", "OK"))
		})

		DescribeTable("refuses a batch that would not read back as written, and stores none of it",
			func(batch func() []session.Event, want error, says string) {
				before := Encoded(s.load("root"))
				err := s.store.Append(s.ctx, "root", batch())
				Expect(err).To(MatchError(want))
				Expect(err.Error()).To(ContainSubstring("root"), "the error names the session")
				Expect(err.Error()).To(ContainSubstring(says))
				Expect(Encoded(s.load("root"))).To(Equal(before))
				s.reopen()
				Expect(Encoded(s.load("root"))).To(Equal(before), "after a reopen")
				Expect(s.store.Append(s.ctx, "root", CompletedTurn(8, 2, "next", "fine"))).To(Succeed(), "the next seq is still 8")
			},
			Entry("a first seq past the next one", func() []session.Event { return CompletedTurn(9, 2, "p", "a") },
				persistence.ErrOutOfOrder, "starts at seq 9, but the session's next seq is 8"),
			Entry("a first seq already stored", func() []session.Event { return CompletedTurn(7, 2, "p", "a") },
				persistence.ErrOutOfOrder, "starts at seq 7"),
			Entry("a gap inside the batch", func() []session.Event {
				evs := CompletedTurn(8, 2, "p", "a")
				evs[3].Seq = 12
				return evs
			}, persistence.ErrOutOfOrder, "event 3 of the batch has seq 12, expected 11"),
			Entry("an event without a type", func() []session.Event {
				return []session.Event{{Seq: 8, Time: T0, Data: json.RawMessage(`{}`)}}
			}, persistence.ErrInvalid, "empty type"),
			Entry("data that is not JSON", func() []session.Event {
				return []session.Event{{Type: "x/custom", Seq: 8, Time: T0, Data: json.RawMessage(`{"a":`)}}
			}, persistence.ErrInvalid, "data is not JSON"),
			Entry("data that spans lines", func() []session.Event {
				return []session.Event{{Type: "x/custom", Seq: 8, Time: T0, Data: json.RawMessage("{\n}")}}
			}, persistence.ErrInvalid, "spans lines"),
			Entry("a packed row type", func() []session.Event {
				return []session.Event{{Type: session.TypeTextChunks, Seq: 8, Time: T0, Data: json.RawMessage(`{}`)}}
			}, persistence.ErrInvalid, "packed row"),
			Entry("an extra member the line already writes", func() []session.Event {
				return []session.Event{{Type: "x/custom", Seq: 8, Time: T0, Extra: map[string]json.RawMessage{"seq": json.RawMessage(`3`)}}}
			}, persistence.ErrInvalid, `"seq" in Extra`),
		)

		It("starts a child's own events right after its seed", func() {
			h := ForkHeader("root", "call_1", 8)
			Expect(s.store.Create(s.ctx, h, CompletedTurn(0, 1, "say OK", "OK"))).To(Succeed())
			Expect(s.store.Append(s.ctx, h.ID, CompletedTurn(0, 2, "p", "a"))).To(MatchError(persistence.ErrOutOfOrder))
			Expect(s.store.Append(s.ctx, h.ID, CompletedTurn(8, 2, "p", "a"))).To(Succeed())
			Expect(s.load(h.ID).Events).To(HaveLen(16))
		})

		It("refuses an append to a session it does not hold", func() {
			err := s.store.Append(s.ctx, "nobody", CompletedTurn(0, 1, "p", "a"))
			Expect(err).To(MatchError(persistence.ErrUnknownSession))
			Expect(err.Error()).To(ContainSubstring("nobody"))
			_, err = s.store.Load(s.ctx, "nobody")
			Expect(err).To(MatchError(persistence.ErrUnknownSession))
		})
	})
}

func describeCreateErrors(s *suite) {
	Describe("create validation", func() {
		BeforeEach(func() {
			s.create(RootHeader("root"), nil, CompletedTurn(0, 1, "say OK", "OK"))
		})

		DescribeTable("refuses a Create it could not honour, and keeps what it holds",
			func(h func() session.Header, seed func() []session.Event, want error) {
				before := s.list()
				Expect(s.store.Create(s.ctx, h(), seed())).To(MatchError(want))
				Expect(s.list()).To(Equal(before))
				Expect(s.load("root").Events).To(HaveLen(8))
			},
			Entry("a session already stored", func() session.Header { return RootHeader("root") }, noSeed, persistence.ErrSessionExists),
			Entry("a seedLength past the seed", func() session.Header { return ForkHeader("root", "c", 9) },
				func() []session.Event { return CompletedTurn(0, 1, "p", "a") }, persistence.ErrBadSeed),
			Entry("a seed whose seqs are not dense from 0", func() session.Header { return ForkHeader("root", "c", 1) },
				func() []session.Event { return CompletedTurn(1, 1, "p", "a") }, persistence.ErrOutOfOrder),
			Entry("an empty id", func() session.Header { return RootHeader("") }, noSeed, persistence.ErrInvalid),
			Entry("an unknown mode", func() session.Header {
				h := SpawnHeader("root", "c")
				h.Mode = "clone"
				return h
			}, noSeed, persistence.ErrInvalid),
			Entry("a header extra that repeats a known member", func() session.Header {
				h := RootHeader("x")
				h.Extra = map[string]json.RawMessage{"createdAt": json.RawMessage(`1`)}
				return h
			}, noSeed, persistence.ErrInvalid),
		)

		It("refuses a second Create of a session not yet written", func() {
			Expect(s.store.Create(s.ctx, RootHeader("pending"), nil)).To(Succeed())
			Expect(s.store.Create(s.ctx, RootHeader("pending"), nil)).To(MatchError(persistence.ErrSessionExists))
		})
	})
}

func noSeed() []session.Event { return nil }
