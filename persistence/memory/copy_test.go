package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// The store holds its own copy of what is appended: a writer may reuse its
// buffers, and lets its own copy go (package journal does).
var _ = Describe("memory store's copy of the appended data", func() {
	It("is its own: a writer that reuses its buffer changes nothing stored", func() {
		ctx := context.Background()
		store := memory.New()
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		data := json.RawMessage(`{"text":"` + strings.Repeat("a", 100) + `"}`)
		want := bytes.Clone(data)
		Expect(store.Append(ctx, "root", []session.Event{{Type: "x/long", Seq: 0, Time: 1, Data: data}})).To(Succeed())
		for i := range data {
			data[i] = ' '
		}
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[0].Data).To(Equal(json.RawMessage(want)))
	})
})
