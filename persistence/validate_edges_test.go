package persistence_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("validation before a store writes", func() {
	It("refuses a header with a negative seedLength", func() {
		err := persistence.ValidateHeader(&session.Header{ID: "s", SeedLength: -1})
		Expect(err).To(MatchError(persistence.ErrInvalid))
		Expect(err.Error()).To(ContainSubstring("seedLength -1"))
		Expect(persistence.ValidateHeader(&session.Header{ID: "s", SeedLength: 0})).To(Succeed())
	})

	DescribeTable("refuses every packed row type as a stored event",
		func(typ string) {
			err := persistence.ValidateEvent(&session.Event{Type: typ, Seq: 4, Data: json.RawMessage(`{}`)})
			Expect(err).To(MatchError(persistence.ErrInvalid))
			Expect(err.Error()).To(ContainSubstring("event seq 4 has type %q, a packed row", typ))
		},
		Entry("text-chunks", session.TypeTextChunks),
		Entry("reasoning-chunks", session.TypeReasoningChunks),
		Entry("tool-call-chunks", session.TypeToolCallChunks),
	)

	It("refuses a surfaceOp that is not one JSON value", func() {
		err := persistence.ValidateEvent(&session.Event{Type: "x", Seq: 2, SurfaceOp: json.RawMessage(`{"op":`)})
		Expect(err).To(MatchError(persistence.ErrInvalid))
		Expect(err.Error()).To(ContainSubstring("event seq 2 (x): surfaceOp is not JSON"))
	})

	DescribeTable("refuses a value holding a raw line break, carriage return included",
		func(data string) {
			err := persistence.ValidateEvent(&session.Event{Type: "x", Seq: 1, Data: json.RawMessage(data)})
			Expect(err).To(MatchError(persistence.ErrInvalid))
			Expect(err.Error()).To(ContainSubstring("the value spans lines"))
		},
		Entry("a newline between members", "{\"a\":1,\n\"b\":2}"),
		Entry("a carriage return between members", "{\"a\":1,\r\"b\":2}"),
	)
})
