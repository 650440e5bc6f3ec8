package memory_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("memory store, a whole last line without its newline", func() {
	It("ends that line before it appends, so no two events share a line", func(ctx SpecContext) {
		b := memory.NewBackend()
		store := memory.Open(b)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		first := storetest.CompletedTurn(0, 1, "p", "a")
		Expect(store.Append(ctx, "root", first[:len(first)-1])).To(Succeed())
		last := session.AppendEvent(nil, &first[len(first)-1])
		b.AppendRaw("root", bytes.TrimSuffix(last, []byte("\n"))) // a whole line, its newline not written

		again := memory.Open(b)
		second := storetest.CompletedTurn(int64(len(first)), 2, "p", "a")
		Expect(again.Append(ctx, "root", second)).To(Succeed())
		l, err := memory.Open(b).Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Torn).To(BeNil())
		Expect(l.Events).To(HaveLen(len(first) + len(second)))
		Expect(session.Validate(&l.Header, l.Events)).To(Succeed())
	})
})
