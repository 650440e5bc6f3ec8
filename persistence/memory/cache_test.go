package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// The backend keeps the events it was given beside the bytes so that Read
// need not decode them; these check that Read gives what decoding the
// bytes gives, whatever the events hold.
var _ = Describe("memory backend's read without decoding", func() {
	ctx := context.Background()

	// stored appends the batches to a new session and returns the backend.
	stored := func(h session.Header, seed []session.Event, batches ...[]session.Event) *memory.Backend {
		b := memory.NewBackend()
		store := memory.Open(b)
		Expect(store.Create(ctx, h, seed)).To(Succeed())
		for _, batch := range batches {
			Expect(store.Append(ctx, h.ID, batch)).To(Succeed())
		}
		return b
	}
	// decoded is the log as the session reader reads the stored bytes.
	decoded := func(b *memory.Backend, id string) *session.Log {
		l, err := session.Read(bytes.NewReader(b.Bytes(id)), "memory:"+id)
		Expect(err).NotTo(HaveOccurred())
		return l
	}
	// written is the log as the session reader reads what a JSONL backend
	// holds of h and the events written, whatever the backend kept of them.
	written := func(h session.Header, seed []session.Event, batches ...[]session.Event) *session.Log {
		events := slices.Concat(append([][]session.Event{seed}, batches...)...)
		l, err := session.Read(bytes.NewReader(session.Encode(&h, events)), "memory:"+h.ID)
		Expect(err).NotTo(HaveOccurred())
		return l
	}

	DescribeTable("reads back what decoding the bytes reads",
		func(cached bool, h session.Header, seed []session.Event, batches ...[]session.Event) {
			b := stored(h, seed, batches...)
			Expect(b.Cached(h.ID)).To(Equal(cached))
			l, err := b.Read(ctx, h.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(l).To(Equal(written(h, seed, batches...)))
			Expect(l).To(Equal(decoded(b, h.ID)))
		},
		Entry("completed turns in batches", true, storetest.RootHeader("root"), nil,
			storetest.CompletedTurn(0, 1, "p", "a"), storetest.CompletedTurn(8, 2, "q", "b")),
		Entry("every corner of the event line", true, storetest.RootHeader("root"), nil,
			storetest.CompletedTurn(0, 1, "p", "a"), storetest.OddEvents(8)),
		Entry("a fork seed, written with the first batch", true, storetest.ForkHeader("root", "call_1", 8), storetest.CompletedTurn(0, 1, "p", "a"),
			storetest.CompletedTurn(8, 2, "q", "b")),
		Entry("an ignorable event with data", true, storetest.RootHeader("root"), nil,
			[]session.Event{{Type: "x", Data: json.RawMessage(`{"a":1}`), Ignorable: true}}),
		Entry("a header with unknown members", true, session.Header{ID: "root", Extra: map[string]json.RawMessage{"zz": json.RawMessage(`[1]`)}}, nil,
			storetest.CompletedTurn(0, 1, "p", "a")),
		Entry("a type that is not UTF-8, which reads back with U+FFFD", false, storetest.RootHeader("root"), nil,
			storetest.CompletedTurn(0, 1, "p", "a"), []session.Event{{Seq: 8, Type: "x\xff", Data: json.RawMessage(`1`)}}),
		Entry("a member name that is not UTF-8", false, storetest.RootHeader("root"), nil,
			[]session.Event{{Type: "x", Extra: map[string]json.RawMessage{"k\xff": json.RawMessage(`1`)}}}),
	)

	Describe("a fork's seed", func() {
		// parent stores a root of two turns, the second with odd events.
		parent := func() (*memory.Backend, []session.Event) {
			b := memory.NewBackend()
			store := memory.Open(b)
			Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
			events := append(storetest.CompletedTurn(0, 1, "p", "a"), storetest.OddEvents(8)...)
			Expect(store.Append(ctx, "root", events)).To(Succeed())
			return b, events
		}
		fork := func(b *memory.Backend, seed []session.Event) *session.Log {
			store := memory.Open(b)
			h := storetest.ForkHeader("root", "call_1", len(seed))
			Expect(store.Create(ctx, h, seed)).To(Succeed())
			batch := storetest.CompletedTurn(int64(len(seed)), 3, "q", "b")
			Expect(store.Append(ctx, h.ID, batch)).To(Succeed())
			l, err := b.Read(ctx, h.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(l).To(Equal(written(h, seed, batch)))
			Expect(l).To(Equal(decoded(b, h.ID)))
			return l
		}

		It("shares the parent's data for the events it holds alike, up to the first kept whole", func() {
			b, events := parent()
			l := fork(b, events)
			Expect(l.Events[:len(events)]).To(Equal(events))
			Expect(b.Shared(l.Header.ID)).To(Equal(9)) // the turn and the first odd event
		})

		It("keeps what differs from the parent as its own", func() {
			b, events := parent()
			seed := append([]session.Event(nil), events[:8]...)
			seed[3].Data = json.RawMessage(`{"turn":1,"step":1,"attempt":1,"chunk":{"type":"text-delta","index":0,"text":"other"}}`)
			seed[5].Time++
			l := fork(b, seed)
			Expect(l.Events[:8]).To(Equal(seed))
			Expect(b.Shared(l.Header.ID)).To(Equal(3))
		})
	})

	It("decodes the bytes again once they hold a raw tail, and keeps decoding after the tail is cut", func() {
		b := stored(storetest.RootHeader("root"), nil, storetest.CompletedTurn(0, 1, "p", "a"))
		b.AppendRaw("root", []byte(`{"type":"turn/st`))
		Expect(b.Cached("root")).To(BeFalse())
		store := memory.Open(b)
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Torn).NotTo(BeNil())
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "q", "b"))).To(Succeed())
		l, err = b.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l).To(Equal(decoded(b, "root")))
		Expect(l.Events).To(HaveLen(16))
		Expect(l.Torn).To(BeNil())
	})

	It("refuses a seedLength past the events as the reader does", func() {
		b := memory.NewBackend()
		h := storetest.ForkHeader("root", "call_1", 9)
		events := storetest.CompletedTurn(0, 1, "p", "a")
		Expect(b.Write(ctx, &persistence.Batch{Header: &h, New: true, Events: events})).To(Succeed())
		_, want := session.Read(bytes.NewReader(session.Encode(&h, events)), "memory:"+h.ID)
		Expect(want).To(HaveOccurred())
		_, err := b.Read(ctx, h.ID)
		Expect(err).To(MatchError(want.Error()))
	})

	It("gives each Read a header and events of its own to change", func() {
		h := storetest.RootHeader("root")
		h.Extra = map[string]json.RawMessage{"zz": json.RawMessage(`1`)}
		b := stored(h, nil, storetest.OddEvents(0))
		l, err := b.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		l.Header.Extra["zz"] = json.RawMessage(`"changed"`)
		l.Events[0].Type = "changed"
		l.Events[3].SourceEventSeqs[0] = 99
		l.Events[1].Extra["alpha"] = json.RawMessage(`"changed"`)
		l.Events = append(l.Events[:1], session.Event{Type: "inserted"})
		again, err := b.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(decoded(b, "root")))
	})
})
