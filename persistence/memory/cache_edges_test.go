package memory_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("memory backend, events it keeps decoded", func() {
	It("keeps an event's surfaceOp when it has no other member beyond data", func(ctx SpecContext) {
		store := memory.New()
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		e := session.Event{Type: "x/op", Seq: 0, Time: 1, Data: json.RawMessage(`{"a":1}`), SurfaceOp: json.RawMessage(`"append"`)}
		Expect(store.Append(ctx, "root", []session.Event{e})).To(Succeed())
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(l)).To(Equal(string(session.Encode(&l.Header, []session.Event{e}))))
	})

	It("reads back a seq written out of order as the bytes read, not renumbered", func(ctx SpecContext) {
		b := memory.NewBackend()
		h := storetest.RootHeader("root")
		Expect(b.Write(ctx, &persistence.Batch{Header: &h, New: true, Events: []session.Event{{Type: "x", Seq: 5, Time: 1}}})).To(Succeed())
		_, err := b.Read(ctx, "root")
		Expect(err).To(MatchError(session.ErrSeqGap))
		Expect(err.Error()).To(ContainSubstring("memory:root:2:"))
	})
})
