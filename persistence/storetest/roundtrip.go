package storetest

import (
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

func describeRoundTrip(s *suite) {
	Describe("round trip", func() {
		It("keeps a fork child's lineage and seed boundary across a reopen", func() {
			parent := s.parentLog()
			seedLength := session.CompletedPrefix(parent.Events)
			h := ForkHeader("root", "call_7", seedLength)
			own := CompletedTurn(int64(seedLength), 3, "forked task", "MARMALADE")
			s.create(h, parent.Events, own)
			want := &session.Log{Header: h, Events: slices.Concat(parent.Events, own)}
			Expect(Encoded(s.load(h.ID))).To(Equal(Encoded(want)), "before the reopen")

			s.reopen()
			l := s.load(h.ID)
			Expect(Encoded(l)).To(Equal(Encoded(want)), "after the reopen")
			Expect(l.Header.SeedLength).To(Equal(16))
			Expect(l.Header.CreatedAt).To(Equal(T0 + 1000))
			Expect(l.Header.ParentSession).To(Equal("root"))
			Expect(l.Header.ParentCallID).To(Equal("call_7"))
			Expect(l.Header.Mode).To(Equal(session.ModeFork))
			Expect(l.Header.Origin).To(Equal(session.OriginSubagent))
			Expect(l.Header.DelegationDepth).To(Equal(1))
			Expect(Encoded(&session.Log{Header: h, Events: l.Own()})).To(Equal(Encoded(&session.Log{Header: h, Events: own})))
			Expect(s.header(h.ID)).To(Equal(l.Header), "List reports the stored header")
		})

		It("keeps a spawn child without a seedLength", func() {
			s.parentLog()
			h := SpawnHeader("root", "call_9")
			own := CompletedTurn(0, 1, "spawned task", "SAFFRON")
			s.create(h, nil, own)
			s.reopen()
			l := s.load(h.ID)
			Expect(Encoded(l)).To(Equal(Encoded(&session.Log{Header: h, Events: own})))
			Expect(l.Header.SeedLength).To(BeZero())
			Expect(Encoded(l)).NotTo(ContainSubstring(`"seedLength"`))
			Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
			Expect(l.Header.ParentCallID).To(Equal("call_9"))
		})

		It("keeps unknown event types, unknown members and header extras verbatim", func() {
			h := RootHeader("odd")
			h.Extra = map[string]json.RawMessage{"sandbox": json.RawMessage(`{"mode":"workspace-write"}`), "dshFlag": json.RawMessage(`true`)}
			events := slices.Concat(CompletedTurn(0, 1, "hi", "hello"), OddEvents(8))
			s.create(h, nil, events)
			s.reopen()
			l := s.load("odd")
			Expect(Encoded(l)).To(Equal(Encoded(&session.Log{Header: h, Events: events})))
			Expect(l.Header.Extra).To(HaveKeyWithValue("sandbox", MatchJSON(`{"mode":"workspace-write"}`)))
			custom := l.Events[9]
			Expect(custom.Type).To(Equal("x/custom"))
			Expect(custom.Ignorable).To(BeTrue())
			Expect(custom.Extra).To(HaveKeyWithValue("zeta", MatchJSON(`{"nested":[true,null]}`)))
			Expect(l.Events[10].SourceEventSeqs).To(Equal([]int64{}), "an empty sourceEventSeqs stays present")
			Expect(l.Events[11].Data).To(BeNil(), "an event without data stays without")
			Expect(string(l.Events[12].Data)).To(Equal("null"))
		})
	})
}

func describeResume(s *suite) {
	Describe("resume", func() {
		It("resumes a session with its stored seedLength and createdAt", func() {
			parent := s.parentLog()
			h := ForkHeader("root", "call_7", 16)
			own := CompletedTurn(16, 3, "forked task", "MARMALADE")
			s.create(h, parent.Events, own)

			s.reopen()
			resumed := s.load(h.ID)
			next := CompletedTurn(int64(len(resumed.Events)), 4, "follow-up", "DONE")
			Expect(s.store.Append(s.ctx, h.ID, next)).To(Succeed())

			s.reopen()
			l := s.load(h.ID)
			Expect(l.Header.SeedLength).To(Equal(16))
			Expect(l.Header.CreatedAt).To(Equal(T0 + 1000))
			Expect(Encoded(l)).To(Equal(Encoded(&session.Log{Header: h, Events: slices.Concat(parent.Events, own, next)})))
		})

		It("stores a resumed log's seedLength as given, never the seed's length", func() {
			parent := s.parentLog()
			h := ForkHeader("root", "call_7", 16)
			s.create(h, parent.Events, CompletedTurn(16, 3, "forked task", "MARMALADE"))
			stored := s.load(h.ID)

			other := s.open(s.newStorage())
			Expect(other.Create(s.ctx, stored.Header, stored.Events)).To(Succeed())
			next := CompletedTurn(int64(len(stored.Events)), 4, "follow-up", "DONE")
			Expect(other.Append(s.ctx, h.ID, next)).To(Succeed())
			l, err := other.Load(s.ctx, h.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Header.SeedLength).To(Equal(16), "the seed held %d events", len(stored.Events))
			Expect(l.Header.CreatedAt).To(Equal(T0 + 1000))
			Expect(l.Events).To(HaveLen(len(stored.Events) + len(next)))
		})
	})
}
