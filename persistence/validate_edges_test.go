package persistence_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/persistence/storetest"
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

var _ = Describe("a session with an empty id", func() {
	DescribeTable("is refused by every store, with what to do, and nothing is written",
		func(kind string) {
			dir := GinkgoT().TempDir()
			spec := map[string]string{"jsonl": "jsonl:" + dir, "sqlite": "sqlite:" + filepath.Join(dir, "s.db"), "memory": "memory:"}[kind]
			s, err := open.Store(context.Background(), spec)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			err = s.Create(context.Background(), storetest.RootHeader(""), nil)
			Expect(err).To(MatchError(persistence.ErrInvalid))
			Expect(err.Error()).To(ContainSubstring(`header has an empty id; give the session an id (the root's is "root", a child's its lineage, such as "root/call_1")`))
			Expect(s.List(context.Background())).To(BeEmpty())
			if kind == "jsonl" {
				Expect(os.ReadDir(dir)).To(BeEmpty())
			}
		},
		Entry("JSONL", "jsonl"),
		Entry("SQLite", "sqlite"),
		Entry("memory", "memory"),
	)
})
