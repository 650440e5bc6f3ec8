package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// A writer that never writes its payloads again says so with
// persistence.KeepData; the store then holds those bytes, not a copy.
var _ = Describe("memory store's data a writer lets it keep", func() {
	ctx := context.Background()
	long := func(seq int64) session.Event {
		return session.Event{Type: "x/long", Seq: seq, Time: 1, Data: json.RawMessage(`{"text":"` + strings.Repeat("a", 100) + `"}`)}
	}
	short := func(seq int64) session.Event {
		return session.Event{Type: "x/short", Seq: seq, Time: 1, Data: json.RawMessage(`{"n":1}`)}
	}
	// appended appends long and short events under ctx and returns them and
	// the store.
	appended := func(actx context.Context) ([]session.Event, *memory.Store) {
		store := memory.New()
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		events := []session.Event{long(0), short(1), long(2)}
		Expect(store.Append(actx, "root", events)).To(Succeed())
		return events, store
	}
	same := func(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

	It("keeps the appended data itself, read back as written", func() {
		events, store := appended(persistence.KeepData(ctx))
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(Equal(events))
		Expect(same(l.Events[0].Data, events[0].Data)).To(BeTrue(), "long data was copied")
		Expect(same(l.Events[2].Data, events[2].Data)).To(BeTrue(), "long data was copied")
		Expect(same(l.Events[1].Data, events[1].Data)).To(BeFalse(), "short data is copied: cheaper than a block of its own")
		Expect(cap(l.Events[0].Data)).To(Equal(len(l.Events[0].Data)), "kept data is capped: an append cannot write past it")
		again, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(l))
	})

	It("copies what a writer does not let it keep, so the writer may reuse its buffers", func() {
		events, store := appended(ctx)
		want := bytes.Clone(events[0].Data)
		for i := range events[0].Data {
			events[0].Data[i] = ' '
		}
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[0].Data).To(Equal(json.RawMessage(want)))
	})

	It("goes on filling its own blocks around the data it keeps, never into a writer's spare room", func() {
		roomy := func(seq int64) session.Event {
			e := long(seq)
			e.Data = append(make([]byte, 0, len(e.Data)+512), e.Data...) // spare room after the data
			return e
		}
		store := memory.New()
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		var all []session.Event
		for i := range 40 {
			batch := []session.Event{roomy(int64(2 * i)), short(int64(2*i + 1))}
			actx := ctx
			if i%2 == 0 {
				actx = persistence.KeepData(ctx)
			}
			Expect(store.Append(actx, "root", batch)).To(Succeed())
			all = append(all, batch...)
		}
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(Equal(all))
		for i := 0; i < len(all); i += 2 {
			Expect([]byte(all[i].Data[:cap(all[i].Data)][len(all[i].Data):])).To(Equal(make([]byte, 512)), "the store wrote into a writer's memory")
		}
	})
})
