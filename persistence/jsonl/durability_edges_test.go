package jsonl_test

import (
	"bytes"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("jsonl folders and line ends", func() {
	It("syncs the parent of a folder it creates, so the new folder's entry is durable", func(ctx SpecContext) {
		parent := GinkgoT().TempDir()
		dir := filepath.Join(parent, "store")
		b, err := jsonl.NewBackend(dir)
		Expect(err).NotTo(HaveOccurred())
		syncs := watchSyncs(b)
		c, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(syncs.steps).NotTo(BeEmpty())
		Expect(syncs.steps[0]).To(Equal("dir holding store"), "the parent, holding the new folder, first")
	})

	It("ends a whole last line that lacks its newline once, then appends batch after batch", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		c, err := jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		first := storetest.CompletedTurn(0, 1, "p", "a")
		Expect(c.Append(ctx, "root", first)).To(Succeed())
		Expect(c.Close()).To(Succeed())
		path := filepath.Join(dir, jsonl.FileName("root"))
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, bytes.TrimSuffix(b, []byte("\n")), 0o644)).To(Succeed())

		c, err = jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		next := int64(len(first))
		for turn := 2; turn <= 3; turn++ {
			batch := storetest.CompletedTurn(next, turn, "p", "a")
			Expect(c.Append(ctx, "root", batch)).To(Succeed())
			next += int64(len(batch))
		}
		l, err := session.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(int(next)))
	})
})
